package playbooks

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// playKeyMore decodes the play keywords that shape its scope: vars_files, roles, remote_user,
// environment, tags, ignore_unreachable.
func (d *decoder) playKeyMore(p *Play, k *pair, where string, tc taskCtx) error {
	var err error
	switch k.key {
	case "vars_files":
		p.VarsFiles, err = d.varsFiles(k.v, where)
	case "roles":
		var specs []roleSpec
		if specs, err = d.roleList(k.v, where); err != nil {
			return err
		}
		var list []*Task
		for _, s := range specs {
			s.public, s.dedup = true, true
			b, err := d.loadRole(s, tc)
			if err != nil {
				return err
			}
			if b != nil {
				list = append(list, b)
			}
		}
		p.Tasks = mergeTasks(p.Tasks, list, "roles")
	case "remote_user":
		p.RemoteUser, err = d.templateStr(k.v, where)
	case "environment":
		p.Environment, err = d.environment(k.v, where)
	case "tags":
		p.Tags, err = d.tags(k.v, where)
	case "ignore_unreachable":
		p.IgnoreUnreachable, err = d.boolean(k.v, where)
	case "connection":
		p.Connection, err = d.connection(k.v, where)
	case "no_log":
		p.NoLog, err = d.boolean(k.v, where)
	case "ignore_errors":
		p.IgnoreErrors, err = d.boolean(k.v, where)
	case "check_mode":
		p.CheckMode, err = d.boolPtr(k.v, where)
	case "diff":
		p.Diff, err = d.boolPtr(k.v, where)
	default:
		err = d.onlyValue(k, where)
	}
	return err
}

// onlyValues are keywords kupgrade accepts with the value that is what it does anyway (and
// keywords that only shape facts or display, which change nothing it runs).
var onlyValues = map[string][]string{
	"strategy": {"linear"}, "order": {"inventory"}, "become_method": {"sudo"},
	"collections":   {"ansible.builtin", "ansible.legacy"},
	"gather_subset": nil, "gather_timeout": nil,
}

func (d *decoder) onlyValue(k *pair, where string) error {
	if r, _ := d.deref(k.v); k.key == "strategy" && r != nil && r.Value == "free" {
		d.warn(k.v, "[WARNING]: strategy free runs as linear in kupgrade: every host finishes a task before any starts the next")
		return nil
	}
	allowed, ok := onlyValues[k.key]
	if !ok || allowed == nil {
		return nil
	}
	vals, nodes, err := d.strList(k.v, where)
	if err != nil {
		return err
	}
	for i, v := range vals {
		if !slices.Contains(allowed, v) {
			more := ""
			if k.key == "strategy" {
				more = " (and free as linear)"
			}
			return d.errAt(nodes[i], "%s %q is not supported by kupgrade; it runs %s %s%s", k.key, v, k.key, strings.Join(allowed, ", "), more)
		}
	}
	return nil
}

// varsFiles reads vars_files: names (maybe templates), or lists of names of which the first
// that exists is read. A plain name must exist when the playbook loads.
func (d *decoder) varsFiles(n *yaml.Node, where string) ([][]string, error) {
	items, err := d.sequence(n, where)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, it := range items {
		cands, nodes, err := d.strList(it, where)
		if err != nil {
			return nil, err
		}
		for i, c := range cands {
			if err := d.checkTemplate(nodes[i], c, where); err != nil {
				return nil, err
			}
		}
		if len(cands) == 1 && !strings.Contains(cands[0], "{{") {
			if _, ok := find(cands[0], []string{d.ld.base}); !ok {
				return nil, d.errAt(nodes[0], "vars_files: %s not found beside the playbook (%s)", cands[0], d.ld.base)
			}
		}
		out = append(out, cands)
	}
	return out, nil
}

// connection reads the connection keyword: local runs on this machine; ssh (and smart, which
// is ssh) is kupgrade's own transport. The other plugins are refused.
func (d *decoder) connection(n *yaml.Node, where string) (string, error) {
	s, err := d.str(n, where)
	switch {
	case err != nil:
		return "", err
	case s == "local" || s == "ssh":
		return s, nil
	case s == "smart":
		return "ssh", nil
	}
	return "", d.errAt(n, "connection %q is not supported by kupgrade (%s); it connects with ssh or local", s, where)
}

// unknownPlayKey says whether a key is an Ansible play keyword kupgrade does not run, a task
// put at the play's level, or a typo.
func (d *decoder) unknownPlayKey(k *pair, label string) error {
	if slices.Contains(ansiblePlayKeys, k.key) {
		return d.errAt(k.k, "play keyword %q is not supported by kupgrade (%s)", k.key, label)
	}
	hint := suggest(k.key, playKeys)
	if _, isModule := modules[normaliseModule(k.key)]; isModule || slices.Contains(taskKeys, k.key) {
		hint = "; tasks go under tasks:"
	}
	return d.errAt(k.k, "unknown key %q in %s%s", k.key, label, hint)
}

// flushBetween adds the handler flushes Ansible makes after pre_tasks and before post_tasks
// (the one at the end of the play is the runner's).
func flushBetween(tasks []*Task) []*Task {
	var out []*Task
	for i, t := range tasks {
		if i > 0 && tasks[i-1].phase == "pre_tasks" && t.phase != "pre_tasks" ||
			i > 0 && t.phase == "post_tasks" && tasks[i-1].phase != "post_tasks" {
			out = append(out, &Task{Meta: "flush_handlers", Name: "flush_handlers", File: t.File, Line: t.Line, Column: t.Column})
		}
		out = append(out, t)
	}
	return out
}
