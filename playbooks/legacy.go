package playbooks

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// The forms below are older spellings ansible-core 2.14 still runs; each is rewritten into the
// current form before the task is decoded, so everything after sees only that.

// legacyTask rewrites a task's `action:` and `local_action:` into the module key (local_action
// adds delegate_to: localhost) and `include:` into import_tasks, or include_tasks when the
// file is a template or the task loops (as Ansible decides), with Ansible's deprecation warning.
func (d *decoder) legacyTask(pairs []pair) ([]pair, error) {
	out := make([]pair, 0, len(pairs)+1)
	loops := false
	for _, p := range pairs {
		loops = loops || p.key == "loop" || strings.HasPrefix(p.key, "with_")
	}
	for _, p := range pairs {
		switch p.key {
		case "action", "local_action":
			mod, err := d.actionPair(p)
			if err != nil {
				return nil, err
			}
			out = append(out, mod)
			if p.key == "local_action" {
				out = append(out, pair{key: "delegate_to", k: p.k, v: scalarAt(p.v, "localhost")})
			}
		case "include", "ansible.builtin.include":
			p.key = "import_tasks"
			if r, _ := d.deref(p.v); loops || r != nil && strings.Contains(r.Value, "{{") {
				p.key = "include_tasks"
			}
			d.warn(p.k, `[DEPRECATION WARNING]: "include" is deprecated, use include_tasks/import_tasks instead. This feature will be removed in version 2.16.`)
			out = append(out, p)
		default:
			out = append(out, p)
		}
	}
	return out, nil
}

// actionPair turns `action: copy src=a dest=b` or `action: {module: copy, src: a}` into the
// pair `copy: src=a dest=b` or `copy: {src: a}`.
func (d *decoder) actionPair(p pair) (pair, error) {
	v, err := d.deref(p.v)
	if err != nil {
		return p, err
	}
	switch v.Kind {
	case yaml.ScalarNode:
		name, rest, _ := strings.Cut(strings.TrimSpace(v.Value), " ")
		if name == "" {
			return p, d.errAt(v, "%s names no module; write %s: MODULE ARGS", p.key, p.key)
		}
		return pair{key: name, k: p.k, v: scalarAt(v, strings.TrimSpace(rest))}, nil
	case yaml.MappingNode:
		args := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: v.Line, Column: v.Column}
		name := ""
		for i := 0; i+1 < len(v.Content); i += 2 {
			if v.Content[i].Value == "module" {
				name = v.Content[i+1].Value
				continue
			}
			args.Content = append(args.Content, v.Content[i], v.Content[i+1])
		}
		if name == "" {
			return p, d.errAt(v, "%s has no module key; write %s: {module: NAME, ARG: VALUE}", p.key, p.key)
		}
		return pair{key: name, k: p.k, v: args}, nil
	}
	return p, d.errAt(v, "%s must be `MODULE ARGS` or a mapping with module:, not %s", p.key, kindName(v))
}

// scalarAt is a string node at n's place (errors about it point there).
func scalarAt(n *yaml.Node, s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Line: n.Line, Column: n.Column}
}

// warn records a warning about the node for the CLI to print (Playbook.Warnings).
func (d *decoder) warn(n *yaml.Node, msg string) {
	if n != nil {
		msg = fmt.Sprintf("%s (%s:%d:%d)", msg, d.file, n.Line, n.Column)
	}
	d.ld.warnings = append(d.ld.warnings, msg)
}
