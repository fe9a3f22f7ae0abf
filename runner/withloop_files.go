package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kupgrade/kupgrade/jinja"
)

// fileFinder is where a task's relative file names are looked for: its role's folder, then
// the playbook's, each under sub (files/ unless set) first (Ansible's search path for lookups).
type fileFinder struct{ roleDir, base, sub string }

// loopSubdir is the folder a with_* loop's lookup searches first, as Ansible's task executor
// picks it from the action's name: templates/ for template, vars/ for include_vars, else files/.
func loopSubdir(module string) string {
	for _, sub := range []string{"template", "var"} {
		if strings.Contains(module, sub) {
			return sub + "s"
		}
	}
	return "files"
}

func (f fileFinder) dirs(sub string) []string {
	var out []string
	for _, d := range []string{f.roleDir, f.base} {
		if d != "" {
			out = append(out, filepath.Join(d, sub), d)
		}
	}
	return out
}

// firstFound is the first_found lookup: the first of the files (names, or mappings with files,
// paths and skip) that exists; none found is an error unless skip is set.
func firstFound(terms []any, f fileFinder) ([]any, error) {
	skip := false
	var cands []string
	for _, t := range terms {
		m, ok := t.(map[string]any)
		if !ok {
			cands = append(cands, splitNames(t)...)
			continue
		}
		skip = skip || truth(m["skip"])
		files, paths := splitNames(m["files"]), splitNames(m["paths"])
		if len(paths) == 0 {
			cands = append(cands, files...)
		}
		for _, p := range paths {
			for _, fn := range files {
				cands = append(cands, filepath.Join(p, fn))
			}
		}
	}
	for _, c := range cands {
		if p, ok := f.find(c); ok {
			return []any{p}, nil
		}
	}
	if skip {
		return []any{}, nil
	}
	return nil, fmt.Errorf("no file was found when using first_found (looked for %s)", strings.Join(cands, ", "))
}

// splitNames reads a file list: a list, or text split at commas and semicolons.
func splitNames(v any) []string {
	var out []string
	for _, x := range listify(v) {
		if x == nil {
			continue
		}
		for s := range strings.FieldsFuncSeq(jinja.Str(x), func(r rune) bool { return r == ',' || r == ';' }) {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func (f fileFinder) find(name string) (string, bool) {
	if filepath.IsAbs(name) {
		_, err := os.Stat(name)
		return name, err == nil
	}
	sub := f.sub
	if sub == "" {
		sub = "files"
	}
	for _, d := range f.dirs(sub) {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// fileglob is the fileglob lookup: the files matching each pattern, in the first folder of
// the search path where it matches any (sorted; Python's glob order is the folder's).
func fileglob(terms []any, f fileFinder) ([]any, error) {
	out := []any{}
	for _, t := range terms {
		pat := jinja.Str(t)
		dirs := []string{""}
		if !filepath.IsAbs(pat) {
			dirs = f.dirs("files")
		}
		for _, d := range dirs {
			matches, err := filepath.Glob(filepath.Join(d, pat))
			if err != nil {
				return nil, fmt.Errorf("fileglob %q: %w", pat, err)
			}
			n := len(out)
			for _, m := range matches {
				if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
					out = append(out, m)
				}
			}
			if len(out) > n {
				break
			}
		}
	}
	return out, nil
}

// subelements is the subelements lookup: [elements, "key.sub", {skip_missing: true}] gives
// [element, subelement] for each subelement, the element without the key, as in Ansible.
func subelements(terms []any) ([]any, error) {
	if len(terms) < 2 || len(terms) > 3 {
		return nil, fmt.Errorf("subelements lookup expects a list of two or three items")
	}
	key, ok := terms[1].(string)
	if !ok {
		return nil, fmt.Errorf("subelements lookup expects a key name as its second item, got %s", typeName(terms[1]))
	}
	var flags map[string]any
	if len(terms) == 3 {
		flags, _ = terms[2].(map[string]any)
	}
	return jinja.Subelements(terms[0], key, truth(flags["skip_missing"]), true)
}
