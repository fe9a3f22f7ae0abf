package modules

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// pyPackage is a Python module packaged as Ansible's AnsiballZ packages it: the module and the
// module_utils it imports (transitively), as a zip the host's Python imports from.
type pyPackage struct {
	name string // the module's dotted name inside the zip: ansible.modules.ini_file, ansible_collections.ns.coll.plugins.modules.x
	zip  []byte
}

// pyImport finds the imports of Python source: `import a.b, c as d` and `from .x import (y,
// z)`, over several lines when parenthesised.
var pyImport = regexp.MustCompile(`(?m)^[ \t]*(?:import[ \t]+([\w. \t,]+)|from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*))`)

// packPython packages the module at src. roots are the folders the dotted names resolve under
// (those holding ansible/module_utils and ansible_collections).
func packPython(src string, roots []string) (*pyPackage, error) {
	body, err := os.ReadFile(src)
	if err != nil {
		return nil, fmt.Errorf("read module: %w", err)
	}
	name := pyDottedName(src)
	files := map[string][]byte{pyFile(name, false): body}
	todo := []pyDep{{name: name, body: body, pkg: false}}
	for len(todo) > 0 {
		d := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, imp := range pyImports(d) {
			// a.b.c needs the packages a.b and a too (their __init__ may hold code)
			for i := range strings.Count(imp, ".") + 1 {
				n := strings.Join(strings.Split(imp, ".")[:i+1], ".")
				if dep, ok := pyResolve(n, roots, files); ok {
					todo = append(todo, dep)
				}
			}
		}
	}
	addInits(files)
	z, err := zipFiles(files)
	if err != nil {
		return nil, fmt.Errorf("zip module: %w", err)
	}
	return &pyPackage{name: name, zip: z}, nil
}

// pyDep is a file of the package: its dotted name, whether it is a package's __init__, and
// its source.
type pyDep struct {
	name string
	pkg  bool
	body []byte
}

// pyDottedName is the name a module is imported under: its place under ansible/modules or
// ansible_collections when it lies there, ansible.legacy.NAME for a library/ folder's.
func pyDottedName(src string) string {
	base := strings.TrimSuffix(filepath.Base(src), ".py")
	parts := strings.Split(filepath.ToSlash(src), "/")
	for i, p := range parts {
		if p == "ansible_collections" && i+1 < len(parts) {
			return strings.TrimSuffix(strings.Join(parts[i:], "."), ".py")
		}
	}
	if len(parts) >= 3 && parts[len(parts)-3] == "ansible" && parts[len(parts)-2] == "modules" {
		return "ansible.modules." + base
	}
	return "ansible.legacy." + base
}

// pyImports lists the absolute dotted names d may import: for `from a import b`, both a and
// a.b (b may be a module), relative names resolved against d's package.
func pyImports(d pyDep) []string {
	var out []string
	for _, m := range pyImport.FindAllSubmatch(d.body, -1) {
		if len(m[1]) > 0 {
			for _, w := range strings.Split(string(m[1]), ",") {
				if f := strings.Fields(w); len(f) > 0 {
					out = append(out, f[0])
				}
			}
			continue
		}
		from := absImport(string(m[2]), d)
		out = append(out, from)
		names := strings.Trim(string(m[3]), "() \t\r\n")
		for _, w := range strings.Split(names, ",") {
			if f := strings.Fields(w); len(f) > 0 && f[0] != "*" {
				out = append(out, from+"."+f[0])
			}
		}
	}
	return out
}

// absImport resolves a relative module name (leading dots) against d's package.
func absImport(mod string, d pyDep) string {
	dots := len(mod) - len(strings.TrimLeft(mod, "."))
	if dots == 0 {
		return mod
	}
	pkg := strings.Split(d.name, ".")
	if !d.pkg {
		pkg = pkg[:len(pkg)-1]
	}
	pkg = pkg[:max(len(pkg)-(dots-1), 0)]
	if rest := mod[dots:]; rest != "" {
		pkg = append(pkg, rest)
	}
	return strings.Join(pkg, ".")
}

// pyResolve finds the file of a dotted name among the module_utils Ansible packages, adds it
// to files, and returns it to scan; ok is false for names outside module_utils, names already
// added, and names that are no file (a class, a function, six.moves).
func pyResolve(name string, roots []string, files map[string][]byte) (pyDep, bool) {
	if !strings.HasPrefix(name, "ansible.module_utils.") && !(strings.HasPrefix(name, "ansible_collections.") && strings.Contains(name, ".plugins.module_utils.")) {
		return pyDep{}, false
	}
	for _, pkg := range []bool{false, true} {
		rel := pyFile(name, pkg)
		if _, done := files[rel]; done {
			return pyDep{}, false
		}
		for _, root := range roots {
			if body, err := os.ReadFile(filepath.Join(root, rel)); err == nil {
				files[rel] = body
				return pyDep{name: name, pkg: pkg, body: body}, true
			}
		}
	}
	return pyDep{}, false
}

// pyFile is the file of a dotted name: a/b.py, or a/b/__init__.py for a package.
func pyFile(name string, pkg bool) string {
	p := strings.ReplaceAll(name, ".", "/")
	if pkg {
		return p + "/__init__.py"
	}
	return p + ".py"
}

// addInits gives every folder of the zip an __init__.py (empty when the package has none:
// zipimport knows no namespace packages); ansible's own is always empty, as AnsiballZ has it.
func addInits(files map[string][]byte) {
	for f := range files {
		for d := filepath.Dir(f); d != "."; d = filepath.Dir(d) {
			if _, ok := files[d+"/__init__.py"]; !ok {
				files[d+"/__init__.py"] = nil
			}
		}
	}
	files["ansible/__init__.py"] = nil
}

func zipFiles(files map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		f, err := w.Create(n)
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(files[n]); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
