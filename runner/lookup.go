package runner

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/vault"
)

// lookups runs Ansible's lookup plugins for lookup(), query() and q() (jinja.Lookuper), on
// this machine as Ansible runs them on its controller. Files are looked for in the role's
// folder (role_path), then the playbook's, each under files/ or templates/ first.
type lookups struct{ e *playExec }

// lookupPlugins are the plugins kupgrade has besides the with_* loops' (withLookups).
var lookupPlugins = map[string]func(l lookups, terms []any, kw, vars map[string]any) ([]any, error){
	"env":                 lookupEnv,
	"file":                lookupFile,
	"template":            lookupTemplate,
	"pipe":                lookupPipe,
	"vars":                lookupVars,
	"inventory_hostnames": lookupHosts,
	"varnames":            lookupVarnames,
}

func (l lookups) Lookup(name string, terms []any, kw, vars map[string]any) ([]any, error) {
	if p, ok := lookupPlugins[name]; ok {
		return p(l, terms, kw, vars)
	}
	if p, ok := withLookups[name]; ok {
		if name == "first_found" && (kw["files"] != nil || kw["paths"] != nil) {
			terms = append(terms, kw)
		}
		return p(terms, finderOf(vars))
	}
	return nil, fmt.Errorf("lookup plugin %q is not supported by kupgrade; it has %s", name, lookupNames())
}

func lookupNames() string {
	return "env, file, template, pipe, vars, varnames, inventory_hostnames, items, list, dict, first_found, nested, " +
		"indexed_items, flattened, together, sequence, subelements, random_choice, fileglob"
}

// finderOf is the file search path of the task the variables belong to.
func finderOf(vars map[string]any) fileFinder {
	role, _ := vars["role_path"].(string)
	base, _ := vars["playbook_dir"].(string)
	return fileFinder{roleDir: role, base: base}
}

func lookupEnv(_ lookups, terms []any, kw, _ map[string]any) ([]any, error) {
	out := make([]any, len(terms))
	for i, t := range terms {
		v, ok := os.LookupEnv(jinja.Str(t))
		if !ok {
			v = jinja.Str(kw["default"])
		}
		out[i] = v
	}
	return out, nil
}

// lookupFile reads each file, its trailing whitespace stripped (rstrip=True, lstrip=False).
func lookupFile(_ lookups, terms []any, kw, vars map[string]any) ([]any, error) {
	out := make([]any, len(terms))
	for i, t := range terms {
		b, err := readLookupFile(finderOf(vars), jinja.Str(t), "files")
		if err != nil {
			return nil, err
		}
		s := string(b)
		if r, ok := kw["rstrip"].(bool); !ok || r {
			s = strings.TrimRight(s, " \t\r\n\v\f")
		}
		if l, _ := kw["lstrip"].(bool); l {
			s = strings.TrimLeft(s, " \t\r\n\v\f")
		}
		out[i] = s
	}
	return out, nil
}

func readLookupFile(f fileFinder, name, sub string) ([]byte, error) {
	cands := []string{name}
	if !filepath.IsAbs(name) {
		cands = cands[:0]
		for _, d := range f.dirs(sub) {
			cands = append(cands, filepath.Join(d, name))
		}
	}
	for _, p := range cands {
		if b, err := os.ReadFile(p); err == nil {
			return vaultOpen(p, b)
		}
	}
	return nil, fmt.Errorf("could not locate file in lookup: %s (looked in %s)", name, strings.Join(cands, ", "))
}

// lookupTemplate renders each template file with the task's variables.
func lookupTemplate(_ lookups, terms []any, _, vars map[string]any) ([]any, error) {
	out := make([]any, len(terms))
	for i, t := range terms {
		b, err := readLookupFile(finderOf(vars), jinja.Str(t), "templates")
		if err != nil {
			return nil, err
		}
		if out[i], err = jinja.RenderFile(string(b), vars); err != nil {
			return nil, fmt.Errorf("template %s: %w", jinja.Str(t), err)
		}
	}
	return out, nil
}

// lookupPipe runs each command with sh in the playbook's folder; its output, trailing
// whitespace stripped, is the result; a non-zero exit is an error.
func lookupPipe(l lookups, terms []any, _, _ map[string]any) ([]any, error) {
	out := make([]any, len(terms))
	for i, t := range terms {
		cmd := exec.Command("/bin/sh", "-c", jinja.Str(t))
		cmd.Dir = l.e.dir
		var so bytes.Buffer
		cmd.Stdout = &so
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("lookup_plugin.pipe(%s) returned %v", jinja.Str(t), err)
		}
		out[i] = strings.TrimRight(so.String(), " \t\r\n\v\f")
	}
	return out, nil
}

// lookupVars is each variable's value, rendered; a missing one is an error unless default=.
func lookupVars(_ lookups, terms []any, kw, vars map[string]any) ([]any, error) {
	out := make([]any, len(terms))
	for i, t := range terms {
		name := jinja.Str(t)
		v, ok := vars[name]
		if !ok {
			d, has := kw["default"]
			if !has {
				return nil, fmt.Errorf("No variable found with this name: %s (%w)", name, &jinja.UndefinedError{Name: name})
			}
			out[i] = d
			continue
		}
		r, err := jinja.RenderValue(v, vars)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[i] = r
	}
	return out, nil
}

// lookupVarnames lists the names of the host's variables that each term (a regular expression,
// searched anywhere in the name as Python's re.search does) matches, term after term.
func lookupVarnames(l lookups, terms []any, _, vars map[string]any) ([]any, error) {
	names := l.varOrder(vars)
	out := []any{}
	for _, t := range terms {
		s, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("Invalid setting identifier, %q is not a string, it is a %T", jinja.Str(t), t)
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("Unable to use %q as a search parameter: %v", s, err)
		}
		for _, n := range names {
			if re.MatchString(n) {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// varOrder lists the variables' names about as Ansible's variables dict orders them: the
// host's inventory variables, then the play's vars as written, then the others sorted.
func (l lookups) varOrder(vars map[string]any) []string {
	var layers [][]string
	if h := l.e.states[jinja.Str(vars["inventory_hostname"])]; h != nil {
		layers = append(layers, jinja.Keys(h.host.Vars))
	}
	if l.e.play != nil {
		layers = append(layers, jinja.Keys(l.e.play.Vars))
	}
	var rest []string
	for k := range vars {
		if k != "" && k[0] != 0 { // the lookup and data keys are not variables
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	seen := map[string]bool{}
	var names []string
	for _, layer := range append(layers, rest) {
		for _, k := range layer {
			if _, ok := vars[k]; ok && !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	return names
}

// lookupHosts is the inventory's hosts matching the patterns, in inventory order.
func lookupHosts(l lookups, terms []any, _, _ map[string]any) ([]any, error) {
	var pats []string
	for _, t := range terms {
		pats = append(pats, jinja.Str(t))
	}
	hosts, err := l.e.inv.Select(strings.Join(pats, ":"))
	if err != nil {
		return nil, err
	}
	out := make([]any, len(hosts))
	for i, h := range hosts {
		out[i] = h.Name
	}
	return out, nil
}

// vaultOpen decrypts a vaulted file a lookup reads, as Ansible's file and template lookups do.
func vaultOpen(path string, data []byte) ([]byte, error) {
	out, err := vault.Open(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; %s", path, err, vault.Fix(err))
	}
	return out, nil
}
