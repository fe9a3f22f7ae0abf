package playbooks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxFiles bounds how many files one playbook may pull in (imports, roles): a cycle or a
// runaway include is refused instead of reading forever.
const maxFiles = 2000

// loader is what every file read by one Load shares.
type loader struct {
	base  string // the folder of the top playbook
	files int
	stack []string   // files being decoded, to refuse an import cycle
	roles []roleLink // roles being placed, to refuse a dependency cycle
	play  *playLoad  // the play being decoded
	// warnings are what Ansible warns about while loading (a deprecated form): Playbook.Warnings.
	warnings []string
}

// playLoad is the state of one play while its roles are placed.
type playLoad struct {
	play *Play
	seen map[string]bool // role folder and params: a role runs once unless allow_duplicates
	tc   taskCtx
	// handlerFiles are the roles' handler files already added to the play.
	handlerFiles map[string]bool
}

func (ld *loader) decoder(file string) *decoder {
	return &decoder{file: file, budget: 200000, ld: ld}
}

// open reads and parses another YAML file; at is the node that names it, for errors.
func (d *decoder) open(at *yaml.Node, path, what string) (*decoder, *yaml.Node, error) {
	if slices.Contains(d.ld.stack, path) {
		return nil, nil, d.errAt(at, "%s %s includes itself (through %s)", what, path, strings.Join(d.ld.stack, " -> "))
	}
	if d.ld.files++; d.ld.files > maxFiles {
		return nil, nil, d.errAt(at, "more than %d files included; is there a loop?", maxFiles)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, d.errAt(at, "%s: read %s: %v", what, path, pathErr(err))
	}
	root, err := parseYAML(path, data)
	if err != nil {
		return nil, nil, err
	}
	sub := d.ld.decoder(path)
	sub.role = d.role
	return sub, root, nil
}

func pathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// find returns the first of dirs/name (and name.yml, name.yaml when name has no extension)
// that is a file.
func find(name string, dirs []string) (string, bool) {
	if filepath.IsAbs(name) {
		dirs = []string{""}
	}
	exts := []string{""}
	if filepath.Ext(name) == "" {
		exts = []string{".yml", ".yaml", ""}
	}
	for _, dir := range dirs {
		for _, ext := range exts {
			p := filepath.Join(dir, name+ext)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, true
			}
		}
	}
	return "", false
}

// taskDirs are where include_tasks and import_tasks look for a file: beside the file that
// names it, then the role's tasks/, then beside the playbook.
func (d *decoder) taskDirs() []string {
	dirs := []string{filepath.Dir(d.file)}
	if d.role != nil {
		dirs = append(dirs, filepath.Join(d.role.Dir, "tasks"))
	}
	if d.ld.base != "" {
		dirs = append(dirs, d.ld.base)
	}
	return slices.Compact(dirs)
}

var importPlaybookKeys = []string{"import_playbook", "ansible.builtin.import_playbook", "name", "vars", "tags"}

// importPlaybook decodes `- import_playbook: other.yml`; it returns nil, nil for a play.
func (d *decoder) importPlaybook(n *yaml.Node) ([]*Play, error) {
	r, err := d.deref(n)
	if err != nil || r.Kind != yaml.MappingNode {
		return nil, err
	}
	pairs, err := d.mapping(r, "a play")
	if err != nil {
		return nil, err
	}
	var file *pair
	for i := range pairs {
		if normaliseModule(pairs[i].key) == "import_playbook" {
			file = &pairs[i]
		}
	}
	if file == nil {
		return nil, nil
	}
	var vars map[string]any
	var tags []string
	for _, p := range pairs {
		switch {
		case p.key == "vars":
			vars, err = d.varMap(p.v, "vars of import_playbook")
		case p.key == "tags":
			tags, err = d.tags(p.v, "tags of import_playbook")
		case !slices.Contains(importPlaybookKeys, p.key):
			err = d.errAt(p.k, "%q on import_playbook is not supported by kupgrade (it takes name, vars, tags)", p.key)
		}
		if err != nil {
			return nil, err
		}
	}
	return d.loadPlaybook(file, vars, tags)
}

func (d *decoder) loadPlaybook(file *pair, vars map[string]any, tags []string) ([]*Play, error) {
	name, err := d.str(file.v, "import_playbook")
	if err != nil {
		return nil, err
	}
	if strings.Contains(name, "{{") {
		return nil, d.errAt(file.v, "a templated import_playbook name is not supported by kupgrade; name the file")
	}
	path, ok := find(name, []string{filepath.Dir(d.file)})
	if !ok {
		return nil, d.errAt(file.v, "import_playbook: %s not found beside %s", name, d.file)
	}
	sub, root, err := d.open(file.v, path, "import_playbook")
	if err != nil {
		return nil, err
	}
	d.ld.stack = append(d.ld.stack, path)
	defer func() { d.ld.stack = d.ld.stack[:len(d.ld.stack)-1] }()
	plays, err := sub.playbook(root)
	if err != nil {
		return nil, err
	}
	for _, p := range plays {
		if len(vars) > 0 && p.Vars == nil {
			p.Vars = map[string]any{}
		}
		for k, v := range vars {
			p.Vars[k] = v
		}
		p.Tags = append(slices.Clone(tags), p.Tags...)
	}
	return plays, nil
}

// taskFile decodes the tasks of an imported or included file.
func (d *decoder) taskFile(at *yaml.Node, path, what string, c taskCtx) ([]*Task, error) {
	sub, root, err := d.open(at, path, what)
	if err != nil {
		return nil, err
	}
	d.ld.stack = append(d.ld.stack, path)
	defer func() { d.ld.stack = d.ld.stack[:len(d.ld.stack)-1] }()
	c.depth++
	list, err := sub.tasks(root, "a tasks file", c)
	if list == nil && err == nil {
		list = []*Task{}
	}
	return list, err
}

// LoadTasks reads a tasks file for an include_tasks whose name was a template, once the runner
// has rendered it.
func LoadTasks(path string) ([]*Task, error) {
	ld := &loader{base: filepath.Dir(path), play: &playLoad{play: &Play{}, seen: map[string]bool{}, handlerFiles: map[string]bool{}}}
	d := ld.decoder(path)
	return d.taskFile(nil, path, "include_tasks", taskCtx{what: "task"})
}

// ResolveTask finds an included tasks file by name in dirs, as the loader does.
func ResolveTask(name string, dirs []string) (string, error) {
	if p, ok := find(name, dirs); ok {
		return p, nil
	}
	return "", fmt.Errorf("include_tasks: %s not found in %s", name, strings.Join(dirs, ", "))
}

// LoadVars reads a file of variables (vars_files). A missing file's error satisfies
// errors.Is(err, fs.ErrNotExist); an empty file has no variables.
func LoadVars(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil, nil
	}
	root, err := parseYAML(path, data)
	if err != nil {
		return nil, err
	}
	return (&loader{}).decoder(path).varMap(root, "a vars file")
}
