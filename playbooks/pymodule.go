package playbooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// pyModule finds the Python source of a module kupgrade does not have built in, where Ansible
// finds it: a library/ folder beside the role's tasks or the playbook (and ANSIBLE_LIBRARY) for
// a short or ansible.legacy name, ansible-core's own modules for those and ansible.builtin
// names, an installed collection (ANSIBLE_COLLECTIONS_PATH, ~/.ansible/collections,
// /usr/share/ansible/collections, Python's site folders) for NS.COLLECTION.NAME. It returns the
// file, or "" and the places it looked in. A file without AnsibleModule or main is an action
// Ansible's controller runs itself (reboot): refused like a missing one.
func (d *decoder) pyModule(key string) (string, []string) {
	var cands []string
	switch name, builtin := strings.CutPrefix(key, "ansible.builtin."); {
	case builtin:
		cands = append(coreModule(name), collectionModule(coreRedirect(name))...)
	case strings.Count(key, ".") >= 2 && !strings.HasPrefix(key, "ansible.legacy."):
		cands = collectionModule(key)
	default:
		name := strings.TrimPrefix(key, "ansible.legacy.")
		for _, dir := range d.libraryDirs() {
			cands = append(cands, filepath.Join(dir, name+".py"))
		}
		cands = append(append(cands, coreModule(name)...), collectionModule(coreRedirect(name))...)
	}
	for _, c := range cands {
		if b, err := os.ReadFile(c); err == nil && (strings.Contains(string(b), "AnsibleModule(") || strings.Contains(string(b), "def main(")) {
			return c, nil
		}
	}
	return "", cands
}

// externalModule is pyModule's file for a task key that may name a module: not a keyword
// Ansible has, a with_ loop or include.
func (d *decoder) externalModule(p *pair) string {
	if slices.Contains(ansibleTaskKeys, p.key) || strings.HasPrefix(p.key, "with_") || p.key == "include" || p.key == "ansible.builtin.include" {
		return ""
	}
	src, _ := d.pyModule(p.key)
	return src
}

func (d *decoder) libraryDirs() []string {
	var dirs []string
	if d.role != nil {
		dirs = append(dirs, filepath.Join(d.role.Dir, "library"))
	}
	if d.ld != nil && d.ld.base != "" {
		dirs = append(dirs, filepath.Join(d.ld.base, "library"))
	}
	return append(dirs, filepath.SplitList(os.Getenv("ANSIBLE_LIBRARY"))...)
}

// collectionModule lists where NS.COLLECTION.NAME may lie ("" lists nothing).
func collectionModule(fqcn string) []string {
	parts := strings.SplitN(fqcn, ".", 3)
	if len(parts) < 3 {
		return nil
	}
	var out []string
	for _, root := range PythonRoots() {
		out = append(out, filepath.Join(root, "ansible_collections", parts[0], parts[1], "plugins", "modules", strings.ReplaceAll(parts[2], ".", "/")+".py"))
	}
	return out
}

// coreRedirect is where ansible-core sends a short module name that moved to a collection
// (sysctl to ansible.posix.sysctl: its config/ansible_builtin_runtime.yml), "" when it does not.
func coreRedirect(name string) string {
	redirectsOnce.Do(readRedirects)
	return redirects[name]
}

var (
	redirectsOnce sync.Once
	redirects     map[string]string
)

func readRedirects() {
	var rt struct {
		Routing struct {
			Modules map[string]struct {
				Redirect string `yaml:"redirect"`
			} `yaml:"modules"`
		} `yaml:"plugin_routing"`
	}
	redirects = map[string]string{}
	for _, root := range PythonRoots() {
		b, err := os.ReadFile(filepath.Join(root, "ansible", "config", "ansible_builtin_runtime.yml"))
		if err != nil || yaml.Unmarshal(b, &rt) != nil {
			continue
		}
		for name, m := range rt.Routing.Modules {
			redirects[name] = m.Redirect
		}
		return
	}
}

func coreModule(name string) []string {
	var out []string
	for _, root := range PythonRoots() {
		if _, err := os.Stat(filepath.Join(root, "ansible", "modules")); err == nil {
			out = append(out, filepath.Join(root, "ansible", "modules", name+".py"))
		}
	}
	return out
}

// PythonRoots are the folders of this machine under which Ansible's Python packages lie
// (ansible/module_utils, ansible_collections/NS/COLLECTION), in Ansible's order: the
// collection paths first (ANSIBLE_COLLECTIONS_PATH, else ~/.ansible/collections and
// /usr/share/ansible/collections), then Python's site folders.
func PythonRoots() []string {
	roots := filepath.SplitList(os.Getenv("ANSIBLE_COLLECTIONS_PATH"))
	if len(roots) == 0 {
		roots = filepath.SplitList(os.Getenv("ANSIBLE_COLLECTIONS_PATHS"))
	}
	if len(roots) == 0 {
		if home, err := os.UserHomeDir(); err == nil {
			roots = append(roots, filepath.Join(home, ".ansible", "collections"))
		}
		roots = append(roots, "/usr/share/ansible/collections")
	}
	for _, pat := range []string{"/usr/lib/python3/dist-packages", "/usr/local/lib/python3*/dist-packages",
		"/usr/lib/python3*/site-packages", "/usr/local/lib/python3*/site-packages"} {
		m, _ := filepath.Glob(pat)
		roots = append(roots, m...)
	}
	return slices.Compact(roots)
}
