package playbooks

import (
	"fmt"
	"github.com/kupgrade/kupgrade/jinja"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// decoder walks yaml.v3 nodes, so that every error names the file, line and column.
type decoder struct {
	file   string
	budget int // nodes left to visit: aliases could otherwise make a small file huge
	ld     *loader
	role   *Role // the role whose files are being read, if any
}

// pair is one key of a YAML mapping with its nodes.
type pair struct {
	key  string
	k, v *yaml.Node
}

func (d *decoder) errAt(n *yaml.Node, format string, args ...any) *Error {
	e := &Error{File: d.file, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

// deref follows an alias and counts the node against the budget.
func (d *decoder) deref(n *yaml.Node) (*yaml.Node, error) {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > 10 || n.Alias == nil {
			return nil, d.errAt(n, "alias nested too deep")
		}
		n = n.Alias
	}
	d.budget--
	if d.budget < 0 {
		return nil, d.errAt(n, "playbook too large (too many YAML nodes after expanding aliases)")
	}
	return n, nil
}

// mapping returns the keys of a mapping node in order; duplicates and merge keys are errors.
func (d *decoder) mapping(n *yaml.Node, what string) ([]pair, error) {
	n, err := d.deref(n)
	if err != nil {
		return nil, err
	}
	if n.Kind != yaml.MappingNode {
		return nil, d.errAt(n, "%s must be a mapping, not %s", what, kindName(n))
	}
	seen := map[string]bool{}
	pairs := make([]pair, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, d.errAt(k, "keys of %s must be plain names", what)
		}
		if k.Tag == "!!merge" || k.Value == "<<" {
			return nil, d.errAt(k, "merge keys (<<) are not supported in %s", what)
		}
		if seen[k.Value] {
			return nil, d.errAt(k, "duplicate key %q in %s", k.Value, what)
		}
		seen[k.Value] = true
		pairs = append(pairs, pair{key: k.Value, k: k, v: n.Content[i+1]})
	}
	return pairs, nil
}

// sequence returns the items of a sequence node; null is an empty sequence.
func (d *decoder) sequence(n *yaml.Node, what string) ([]*yaml.Node, error) {
	n, err := d.deref(n)
	if err != nil {
		return nil, err
	}
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.errAt(n, "%s must be a list, not %s", what, kindName(n))
	}
	return n.Content, nil
}

func (d *decoder) str(n *yaml.Node, what string) (string, error) {
	n, err := d.deref(n)
	if err != nil {
		return "", err
	}
	if isNull(n) {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", d.errAt(n, "%s must be a string, not %s", what, kindName(n))
	}
	return n.Value, nil
}

// boolean accepts YAML 1.1's yes/no/on/off too: Ansible playbooks are full of them.
func (d *decoder) boolean(n *yaml.Node, what string) (bool, error) {
	s, err := d.str(n, what)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on", "y":
		return true, nil
	case "false", "no", "off", "n", "":
		return false, nil
	}
	return false, d.errAt(n, "%s must be true or false, not %q", what, clip(s, 40))
}

func (d *decoder) boolPtr(n *yaml.Node, what string) (*bool, error) {
	b, err := d.boolean(n, what)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

func (d *decoder) integer(n *yaml.Node, what string) (int, error) {
	s, err := d.str(n, what)
	if err != nil {
		return 0, err
	}
	i, err := strconv.Atoi(s)
	if err != nil || i < 0 {
		return 0, d.errAt(n, "%s must be a whole number, not %q", what, clip(s, 40))
	}
	return i, nil
}

// strList accepts one string or a list of strings.
func (d *decoder) strList(n *yaml.Node, what string) ([]string, []*yaml.Node, error) {
	r, err := d.deref(n)
	if err != nil {
		return nil, nil, err
	}
	if r.Kind != yaml.SequenceNode {
		s, err := d.str(r, what)
		if err != nil || s == "" {
			return nil, nil, err
		}
		return []string{s}, []*yaml.Node{r}, nil
	}
	out := make([]string, 0, len(r.Content))
	nodes := make([]*yaml.Node, 0, len(r.Content))
	for _, c := range r.Content {
		s, err := d.str(c, what)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, s)
		nodes = append(nodes, c)
	}
	return out, nodes, nil
}

// value decodes any node into plain Go values (maps, lists, scalars), as vars and arguments hold.
func (d *decoder) value(n *yaml.Node) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = d.errAt(n, "cannot decode value: %v", r)
		}
	}()
	if err := n.Decode(&v); err != nil {
		return nil, d.errAt(n, "cannot decode value: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	jinja.OrderYAML(n, v)
	return v, nil
}

// yaml11Bools makes the plain scalars YAML 1.1 reads as booleans (yes, no, on, off in their
// three spellings) booleans, as Ansible's YAML reader does: yaml.v3 reads YAML 1.2, where they
// are strings, so `enabled: yes` would otherwise be the string "yes". It applies to variables
// (vars, vars files, role defaults and vars) and to module arguments.
func yaml11Bools(n *yaml.Node, depth int) {
	if n == nil || depth > 64 {
		return
	}
	if n.Kind == yaml.ScalarNode && n.Style == 0 && n.Tag == "!!str" {
		switch n.Value {
		case "yes", "Yes", "YES", "on", "On", "ON":
			n.Tag, n.Value = "!!bool", "true"
		case "no", "No", "NO", "off", "Off", "OFF":
			n.Tag, n.Value = "!!bool", "false"
		}
	}
	for _, c := range n.Content {
		yaml11Bools(c, depth+1)
	}
}

var namePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// varMap decodes a mapping of variables; names must be usable in expressions.
func (d *decoder) varMap(n *yaml.Node, what string) (map[string]any, error) {
	if r, err := d.deref(n); err != nil || isNull(r) {
		return nil, err
	}
	pairs, err := d.mapping(n, what)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(pairs))
	keys := make([]string, 0, len(pairs))
	defer func() { jinja.SetOrder(out, keys) }()
	for _, p := range pairs {
		keys = append(keys, p.key)
		if !namePattern.MatchString(p.key) {
			return nil, d.errAt(p.k, "%q in %s is not a valid variable name", p.key, what)
		}
		yaml11Bools(p.v, 0)
		if out[p.key], err = d.value(p.v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "empty"
		}
		return fmt.Sprintf("%q", clip(n.Value, 40))
	}
	return "an alias"
}
