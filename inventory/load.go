package inventory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads one inventory source, a file or a folder; see LoadAll.
func Load(path string) (*Inventory, error) { return LoadAll(path) }

// LoadAll reads the inventory sources in order, as `ansible-playbook -i A -i B` does, and
// resolves every host's groups and variables. A source is a file, YAML or INI (told apart as
// Ansible does: a .yml/.yaml/.json file or one without extension that holds a YAML map is YAML,
// anything else INI), or a folder whose files are all read, in name order, recursively. Later
// sources add hosts and groups and their variables win; each source's folder contributes its
// group_vars/ and host_vars/. Every error it returns is an *Error (fault.ErrBadInput).
func LoadAll(paths ...string) (*Inventory, error) {
	if len(paths) == 0 {
		return nil, &Error{Msg: "no inventory given", Fix: "pass the inventory with -i FILE or KUPGRADE_INVENTORY"}
	}
	p := newParser(paths[0])
	var dirs []string
	for _, path := range paths {
		dir, err := p.readSource(path)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, dir)
	}
	if err := p.link(); err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		if err := p.readVarsDirs(dir); err != nil {
			return nil, err
		}
	}
	return p.build(paths[0], dirs[0])
}

// readSource reads one -i source and returns the absolute folder whose group_vars/ and
// host_vars/ belong to it: the source itself when it is a folder, else the file's folder, and
// none ("") for a host list.
func (p *parser) readSource(path string) (string, error) {
	if list, ok := hostList(path); ok {
		return "", p.readHostList(list)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", &Error{File: path, Msg: fmt.Sprintf("read inventory: %v", unwrapPath(err)),
			Fix: "pass the inventory with -i FILE or KUPGRADE_INVENTORY", Err: err}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", &Error{File: path, Msg: fmt.Sprintf("resolve folder: %v", err), Err: err}
	}
	if fi.IsDir() {
		return abs, p.readFolder(path)
	}
	return filepath.Dir(abs), p.readFile(path, true)
}

// unwrapPath keeps the reason of a *PathError: the caller already names the file.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// readVarsDirs reads group_vars/ and host_vars/ of one source's folder for every known group
// and host, as Ansible's host_group_vars plugin does; files for unknown names are ignored, as there.
func (p *parser) readVarsDirs(dir string) error {
	if dir == "" { // a host list
		return nil
	}
	vd := varDir{groups: map[string]map[string]varDef{}, hosts: map[string]map[string]varDef{}}
	defer func() { p.varDirs = append(p.varDirs, vd) }()
	groupDir, hostDir := filepath.Join(dir, "group_vars"), filepath.Join(dir, "host_vars")
	if !isDir(groupDir) && !isDir(hostDir) {
		return nil // the common case; spares a few stat calls per host on big inventories
	}
	for _, name := range p.groupOrder {
		vars, err := readVarsFor(groupDir, name)
		if err != nil {
			return err
		}
		vd.groups[name] = vars
	}
	for _, name := range p.hostOrder {
		vars, err := readVarsFor(hostDir, name)
		if err != nil {
			return err
		}
		vd.hosts[name] = vars
	}
	return nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// readVarsFor merges base/NAME, NAME.yml, NAME.yaml, NAME.json, and for each that is a folder its
// files in name order (recursively; hidden files and editor backups skipped), later files winning.
func readVarsFor(base, name string) (map[string]varDef, error) {
	if name == "." || name == ".." || strings.ContainsAny(name, `/\`+"\x00") {
		return nil, nil // such a name cannot be a file; never let it point outside base
	}
	var files []string
	for _, ext := range []string{"", ".yml", ".yaml", ".json"} {
		path := filepath.Join(base, name+ext)
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			continue
		case fi.IsDir():
			found, err := dirFiles(path)
			if err != nil {
				return nil, &Error{File: path, Msg: fmt.Sprintf("read folder: %v", unwrapPath(err)), Err: err}
			}
			files = append(files, found...)
		default:
			files = append(files, path)
		}
	}
	var vars map[string]varDef
	for _, f := range files {
		fv, err := readVarsFile(f)
		if err != nil {
			return nil, err
		}
		if vars == nil {
			vars = map[string]varDef{}
		}
		for k, d := range fv {
			vars[k] = d
		}
	}
	return vars, nil
}

func dirFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") {
			continue
		}
		ext := filepath.Ext(name)
		path := filepath.Join(dir, name)
		if e.IsDir() {
			if ext == "" {
				sub, err := dirFiles(path)
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
			}
			continue
		}
		if slices.Contains([]string{"", ".yml", ".yaml", ".json"}, ext) {
			out = append(out, path)
		}
	}
	return out, nil
}

func readVarsFile(path string) (map[string]varDef, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("read variables: %v", unwrapPath(err)), Err: err}
	}
	p := newParser(path)
	if data, err = unvault(path, data); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(path, data, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	return p.parseVars(doc.Content[0], "a variables file")
}
