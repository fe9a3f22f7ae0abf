package inventory

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// ignoredSuffixes are the names Ansible skips in an inventory folder: INVENTORY_IGNORE_EXTS of
// ansible-core 2.14 (Debian 12's, the reference of the differential tests), editor and package
// leftovers, retry files, docs, and .ini files, which only a folder's listing skips (-i FILE.ini
// reads one). Hidden files and the vars folders are skipped too.
var ignoredSuffixes = []string{".pyc", ".pyo", ".swp", ".bak", "~", ".rpm", ".md", ".txt", ".rst",
	".orig", ".ini", ".cfg", ".retry"}

func ignoredEntry(name string) bool {
	if strings.HasPrefix(name, ".") || name == "group_vars" || name == "host_vars" || name == "vars_plugins" {
		return true
	}
	return slices.ContainsFunc(ignoredSuffixes, func(s string) bool { return strings.HasSuffix(name, s) })
}

// readFolder reads every inventory file of a folder given to -i, in name order, descending into
// sub-folders, as Ansible's InventoryManager does.
func (p *parser) readFolder(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &Error{File: dir, Msg: fmt.Sprintf("read inventory folder: %v", unwrapPath(err)), Err: err}
	}
	for _, e := range entries {
		if ignoredEntry(e.Name()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fi, err := os.Stat(path) // follows a symbolic link, as Ansible does
		if err != nil {
			return &Error{File: path, Msg: fmt.Sprintf("read inventory: %v", unwrapPath(err)), Err: err}
		}
		if fi.IsDir() {
			err = p.readFolder(path)
		} else {
			err = p.readFile(path, false)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readFile reads one inventory file. explicit says the user named it with -i: an empty file is
// then an error (most likely the wrong file), while in a folder it is skipped.
func (p *parser) readFile(path string, explicit bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return &Error{File: path, Msg: fmt.Sprintf("read inventory: %v", unwrapPath(err)),
			Fix: "pass the inventory with -i FILE or KUPGRADE_INVENTORY", Err: err}
	}
	p.file = path
	if p.source, err = filepath.Abs(path); err != nil {
		return &Error{File: path, Msg: fmt.Sprintf("resolve path: %v", err), Err: err}
	}
	if data, err = unvault(path, data); err != nil {
		return err
	}
	if err := refuseFormat(path, data); err != nil {
		return err
	}
	ext := strings.ToLower(filepath.Ext(path))
	yamlExt := ext == ".yml" || ext == ".yaml" || ext == ".json"
	if !yamlExt && ext != "" {
		return p.parseINI(data)
	}
	var doc yaml.Node
	yerr := yaml.Unmarshal(data, &doc)
	if yerr == nil && yamlMap(&doc) {
		return p.document(&doc)
	}
	if yerr == nil && yamlEmpty(&doc) {
		if explicit {
			return p.document(&doc) // says the inventory is empty
		}
		return nil
	}
	// Not a YAML map: Ansible's yaml plugin declines it and its ini plugin reads it.
	ierr := p.parseINI(data)
	if ierr == nil || !yamlExt {
		return ierr
	}
	if yerr != nil {
		return syntaxError(p.file, data, yerr)
	}
	return p.document(&doc)
}

// refuseFormat refuses what kupgrade cannot read, naming it, instead of a misleading parse error.
func refuseFormat(path string, data []byte) error {
	if fi, err := os.Stat(path); err == nil && fi.Mode()&0o111 != 0 && bytes.HasPrefix(data, []byte("#!")) {
		return &Error{File: path, Line: 1, Column: 1, Msg: "dynamic inventory scripts are not supported",
			Fix: "save its output as a static inventory: ansible-inventory -i SCRIPT -y --list > inventory.yml"}
	}
	if strings.EqualFold(filepath.Ext(path), ".toml") {
		return &Error{File: path, Line: 1, Column: 1, Msg: "TOML inventories are not supported",
			Fix: "convert it: ansible-inventory -i FILE -y --list > inventory.yml"}
	}
	return nil
}

func yamlMap(doc *yaml.Node) bool {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return false
	}
	n := doc.Content[0]
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n.Kind == yaml.MappingNode
}

func yamlEmpty(doc *yaml.Node) bool {
	return doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || isNull(doc.Content[0])
}
