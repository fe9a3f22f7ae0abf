package playbooks

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kupgrade/kupgrade/jinja"
)

// moduleArgs decodes a module's arguments (a mapping, the free-form command string, or the old
// `key=value` string), merges `args:` under them, and validates them.
func (d *decoder) moduleArgs(t *Task, mod, argsPair *pair, label string) error {
	m := modules[t.Module]
	if t.ModuleSource != "" {
		m = &module{} // Ansible's module checks its own arguments
	}
	args := map[string]any{}
	nodes := map[string]*yaml.Node{}
	if err := d.decodeArgs(t, m, mod, label, args, nodes); err != nil {
		return err
	}
	if argsPair != nil {
		if err := d.mergeArgsKeyword(argsPair, label, args, nodes); err != nil {
			return err
		}
	}
	if err := d.validateArgs(t, m, mod, label, args, nodes); err != nil {
		return err
	}
	t.Args = args
	return nil
}

// decodeArgs reads the value of the module's key into args, remembering each argument's node.
func (d *decoder) decodeArgs(t *Task, m *module, mod *pair, label string, args map[string]any, nodes map[string]*yaml.Node) error {
	v, err := d.deref(mod.v)
	if err != nil {
		return err
	}
	switch {
	case isNull(v):
	case v.Kind == yaml.ScalarNode && m.freeForm:
		raw, opts := splitRawParams(v.Value)
		args["_raw_params"], nodes["_raw_params"] = raw, v
		for k, o := range opts {
			args[k], nodes[k] = o, v
		}
	case v.Kind == yaml.ScalarNode:
		kv, err := splitKeyValues(v.Value)
		if err != nil {
			return d.errAt(v, "%s of %s: %v", mod.key, label, err)
		}
		for k, s := range kv {
			args[k], nodes[k] = s, v
		}
	default:
		yaml11Bools(v, 0) // `content: yes` is True to Ansible, as in every YAML 1.1 value
		return d.argMap(v, mod.key+" of "+label, args, nodes)
	}
	return nil
}

// mergeArgsKeyword adds the task's `args:` under the module's own arguments.
func (d *decoder) mergeArgsKeyword(argsPair *pair, label string, args map[string]any, nodes map[string]*yaml.Node) error {
	extra, extraNodes := map[string]any{}, map[string]*yaml.Node{}
	yaml11Bools(argsPair.v, 0)
	if err := d.argMap(argsPair.v, "args of "+label, extra, extraNodes); err != nil {
		return err
	}
	for k, v := range extra {
		if _, ok := args[k]; !ok {
			args[k], nodes[k] = v, extraNodes[k]
		}
	}
	return nil
}

// validateArgs checks the arguments against the module's table and each argument's templates,
// naming the node of the first one that fails.
func (d *decoder) validateArgs(t *Task, m *module, mod *pair, label string, args map[string]any, nodes map[string]*yaml.Node) error {
	nodeOf := func(key string) *yaml.Node {
		if at := nodes[key]; at != nil {
			return at
		}
		return mod.k
	}
	if key, msg := m.checkArgs(t.Module, args); t.ModuleSource == "" && msg != "" {
		return d.errAt(nodeOf(key), "%s in %s", msg, label)
	}
	if m.freeForm {
		if s, ok := args["_raw_params"].(string); ok && strings.TrimSpace(s) == "" {
			return d.errAt(mod.v, "%s in %s has an empty command", t.Module, label)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		at := nodeOf(k)
		if err := d.checkArgTemplates(at, args[k], fmt.Sprintf("%s %q of %s", t.Module, k, label)); err != nil {
			return err
		}
		if t.Module == "assert" && k == "that" {
			if err := d.checkThat(at, args[k], label); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *decoder) argMap(n *yaml.Node, where string, args map[string]any, nodes map[string]*yaml.Node) error {
	if r, err := d.deref(n); err != nil || isNull(r) {
		return err
	}
	pairs, err := d.mapping(n, where)
	if err != nil {
		return err
	}
	for _, p := range pairs {
		v, err := d.value(p.v)
		if err != nil {
			return err
		}
		args[p.key], nodes[p.key] = v, p.k
	}
	return nil
}

// checkArgTemplates compiles every `{{ }}` inside an argument value.
func (d *decoder) checkArgTemplates(n *yaml.Node, v any, where string) error {
	switch v := v.(type) {
	case string:
		return d.checkTemplate(n, v, where)
	case map[string]any:
		for _, e := range v {
			if err := d.checkArgTemplates(n, e, where); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range v {
			if err := d.checkArgTemplates(n, e, where); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *decoder) checkThat(n *yaml.Node, v any, label string) error {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	for _, c := range list {
		s, ok := c.(string)
		if !ok {
			s = jinja.Str(c)
		}
		if err := d.checkCond(n, s, "assert that of "+label); err != nil {
			return err
		}
	}
	return nil
}

// splitKeyValues parses Ansible's old `src=a dest="b c"` argument string. Quotes group words;
// a `{{ }}` expression may contain spaces, and quotes of its own inside quotes
// (`msg="{{ x | join(" ") }}"`), as Ansible's split_args reads them.
func splitKeyValues(s string) (map[string]string, error) {
	out := map[string]string{}
	var words []string
	var cur strings.Builder
	var quote byte
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && depth == 0 && c == quote:
			quote = 0
		case (c == '"' || c == '\'') && depth == 0 && quote == 0:
			quote = c
		case strings.HasPrefix(s[i:], "{{"):
			depth++
			cur.WriteString("{{")
			i++
		case strings.HasPrefix(s[i:], "}}") && depth > 0:
			depth--
			cur.WriteString("}}")
			i++
		case (c == ' ' || c == '\t' || c == '\n') && depth == 0 && quote == 0:
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote")
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not key=value; write the arguments as a mapping", clip(w, 40))
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("argument %q given twice", k)
		}
		out[k] = v
	}
	return out, nil
}

func (d *decoder) environment(n *yaml.Node, where string) (map[string]string, error) {
	if r, err := d.deref(n); err != nil || isNull(r) {
		return nil, err
	}
	pairs, err := d.mapping(n, where)
	if err != nil {
		return nil, err
	}
	env := make(map[string]string, len(pairs))
	for _, p := range pairs {
		if env[p.key], err = d.templateStr(p.v, where+" "+p.key); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// tags accepts a list or a comma-separated string, as Ansible does.
func (d *decoder) tags(n *yaml.Node, where string) ([]string, error) {
	list, _, err := d.strList(n, where)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range list {
		for _, t := range strings.Split(s, ",") {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

func (d *decoder) loop(n *yaml.Node, where string) (any, error) {
	r, err := d.deref(n)
	if err != nil {
		return nil, err
	}
	if r.Kind == yaml.ScalarNode && !isNull(r) {
		if t := strings.TrimSpace(r.Value); !strings.HasPrefix(t, "{{") || !strings.HasSuffix(t, "}}") {
			return nil, d.errAt(r, `%s must be a list or a "{{ }}" expression, not %q`, where, clip(r.Value, 40))
		}
		return r.Value, d.checkTemplate(r, r.Value, where)
	}
	if r.Kind != yaml.SequenceNode {
		return nil, d.errAt(r, `%s must be a list or a "{{ }}" expression, not %s`, where, kindName(r))
	}
	v, err := d.value(r)
	if err != nil {
		return nil, err
	}
	return v, d.checkArgTemplates(r, v, where)
}

// loopControl reads loop_control: loop_var, index_var, label, pause and extended.
func (d *decoder) loopControl(t *Task, n *yaml.Node, where string) error {
	pairs, err := d.mapping(n, where)
	if err != nil {
		return err
	}
	keys := []string{"loop_var", "index_var", "label", "pause", "extended", "extended_allitems"} // ansible-core 2.14's
	for _, p := range pairs {
		switch p.key {
		case "loop_var", "index_var":
			var name string
			if name, err = d.str(p.v, where); err == nil && !namePattern.MatchString(name) {
				err = d.errAt(p.v, "%s: %q is not a valid variable name", where, name)
			}
			if p.key == "loop_var" {
				t.LoopVar = name
			} else {
				t.LoopControl.IndexVar = name
			}
		case "label":
			t.LoopControl.Label, err = d.templateStr(p.v, where+" label")
		case "pause":
			t.LoopControl.Pause, err = d.seconds(p.v, where+" pause")
		case "extended":
			t.LoopControl.Extended, err = d.boolean(p.v, where+" extended")
		case "extended_allitems":
			var all bool
			all, err = d.boolean(p.v, where+" extended_allitems")
			t.LoopControl.NoAllItems = !all
		default:
			err = d.errAt(p.k, "loop_control %q is not supported by kupgrade (%s)%s; it takes %s", p.key, where,
				suggest(p.key, keys), strings.Join(keys, ", "))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
