package playbooks

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

var taskKeys = []string{
	"name", "register", "when", "failed_when", "changed_when", "until", "retries", "delay",
	"ignore_errors", "timeout", "become", "become_user", "environment", "no_log", "run_once", "tags",
	"notify", "loop", "with_items", "loop_control", "check_mode", "vars", "listen", "args",
	"block", "rescue", "always",
}

// notOnBlock are task keys that make no sense on a block (Ansible refuses them too).
var notOnBlock = []string{
	"register", "failed_when", "changed_when", "until", "retries", "delay", "notify", "loop",
	"with_items", "loop_control", "args", "listen", "timeout",
}

// maxNesting bounds block nesting: real playbooks stay at two or three levels.
const maxNesting = 16

// taskCtx is what a task's decoding needs to know about where it sits.
type taskCtx struct {
	what   string // "task" or "handler"
	depth  int
	notify *[]notifyRef
}

type notifyRef struct {
	name string
	node *yaml.Node
}

func (d *decoder) tasks(n *yaml.Node, what string, c taskCtx) ([]*Task, error) {
	items, err := d.sequence(n, what)
	if err != nil {
		return nil, err
	}
	if c.depth > maxNesting {
		return nil, d.errAt(n, "blocks nested deeper than %d", maxNesting)
	}
	out := make([]*Task, 0, len(items))
	for _, it := range items {
		t, err := d.task(it, c)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (d *decoder) task(n *yaml.Node, c taskCtx) (*Task, error) {
	n, err := d.deref(n)
	if err != nil {
		return nil, err
	}
	pairs, err := d.mapping(n, "a "+c.what)
	if err != nil {
		return nil, err
	}
	t := &Task{File: d.file, Line: n.Line, Column: n.Column}
	var mod, argsPair, untilPair *pair
	keys := map[string]*pair{}
	for i := range pairs {
		p := &pairs[i]
		keys[p.key] = p
		if p.key == "name" {
			if t.Name, err = d.str(p.v, "name"); err != nil {
				return nil, err
			}
		}
	}
	label := func() string {
		if t.Name != "" {
			return fmt.Sprintf("%s %q", c.what, clip(t.Name, 60))
		}
		if mod != nil {
			return fmt.Sprintf("%s %q", c.what, mod.key)
		}
		return "a " + c.what
	}
	for i := range pairs {
		p := &pairs[i]
		if slices.Contains(taskKeys, p.key) {
			continue
		}
		name := normaliseModule(p.key)
		if _, ok := modules[name]; !ok {
			if strings.Contains(p.key, ".") && !strings.HasPrefix(p.key, "ansible.") {
				return nil, d.errAt(p.k, "unknown module %q in %s; kupgrade runs %s", p.key, label(), strings.Join(moduleNames, ", "))
			}
			return nil, d.errAt(p.k, "unknown key %q in %s%s", p.key, label(),
				suggest(name, append(slices.Clone(taskKeys), moduleNames...)))
		}
		if mod != nil {
			return nil, d.errAt(p.k, "%s has two modules, %q and %q; split it into two tasks", label(), mod.key, p.key)
		}
		mod = p
		t.Module = name
	}
	for i := range pairs {
		p := &pairs[i]
		if p.key == "args" {
			argsPair = p
		}
		if p.key == "until" {
			untilPair = p
		}
		if err := d.taskKey(t, p, c, label); err != nil {
			return nil, err
		}
	}
	if err := d.checkShape(t, n, keys, mod, label); err != nil {
		return nil, err
	}
	if untilPair != nil && keys["retries"] == nil {
		return nil, d.errAt(untilPair.k, "%s has until but no retries; say how many times to try", label())
	}
	if t.Loop != nil && t.LoopVar == "" {
		t.LoopVar = "item"
	}
	if mod != nil {
		return t, d.moduleArgs(t, mod, argsPair, label())
	}
	return t, nil
}

// checkShape enforces that a task is exactly one of: a module call, or a block.
func (d *decoder) checkShape(t *Task, n *yaml.Node, keys map[string]*pair, mod *pair, label func() string) error {
	block := keys["block"]
	for _, k := range []string{"rescue", "always"} {
		if p := keys[k]; p != nil && block == nil {
			return d.errAt(p.k, "%s has %s but no block", label(), k)
		}
	}
	switch {
	case block != nil && mod != nil:
		return d.errAt(mod.k, "%s has both a block and the module %q; move the module into the block", label(), mod.key)
	case block != nil:
		if t.Block == nil {
			t.Block = []*Task{}
		}
		for _, k := range notOnBlock {
			if p := keys[k]; p != nil {
				return d.errAt(p.k, "%q is not allowed on a block (%s); put it on the tasks inside", k, label())
			}
		}
	case mod == nil:
		return d.errAt(n, "%s has no module; kupgrade runs %s", label(), strings.Join(moduleNames, ", "))
	}
	return nil
}

// taskKey decodes one task keyword into t.
func (d *decoder) taskKey(t *Task, p *pair, c taskCtx, label func() string) error {
	var err error
	where := func(key string) string { return fmt.Sprintf("%s of %s", key, label()) }
	switch p.key {
	case "register":
		if t.Register, err = d.str(p.v, "register"); err == nil && !namePattern.MatchString(t.Register) {
			err = d.errAt(p.v, "register of %s: %q is not a valid variable name", label(), t.Register)
		}
	case "when":
		t.When, err = d.conditions(p.v, where("when"))
	case "failed_when":
		t.FailedWhen, err = d.conditions(p.v, where("failed_when"))
	case "changed_when":
		t.ChangedWhen, err = d.conditions(p.v, where("changed_when"))
	case "until":
		var u []string
		if u, err = d.conditions(p.v, where("until")); err == nil {
			t.Until = joinConds(u)
		}
	case "retries":
		t.Retries, err = d.integer(p.v, where("retries"))
	case "delay":
		t.Delay, err = d.seconds(p.v, where("delay"))
	case "timeout":
		t.Timeout, err = d.seconds(p.v, where("timeout"))
	case "ignore_errors":
		t.IgnoreErrors, err = d.boolean(p.v, where("ignore_errors"))
	case "no_log":
		t.NoLog, err = d.boolean(p.v, where("no_log"))
	case "run_once":
		t.RunOnce, err = d.boolean(p.v, where("run_once"))
	case "become":
		t.Become, err = d.boolPtr(p.v, where("become"))
	case "check_mode":
		t.CheckMode, err = d.boolPtr(p.v, where("check_mode"))
	case "become_user":
		t.BecomeUser, err = d.templateStr(p.v, where("become_user"))
	case "environment":
		t.Environment, err = d.environment(p.v, where("environment"))
	case "tags":
		t.Tags, err = d.tags(p.v, where("tags"))
	case "name":
		if strings.Contains(t.Name, "{{") {
			err = d.checkTemplate(p.v, t.Name, where("name"))
		}
	default:
		err = d.flowKey(t, p, c, label, where)
	}
	return err
}

// flowKey decodes the keys of a task that shape the flow: handlers, loops, vars and blocks.
func (d *decoder) flowKey(t *Task, p *pair, c taskCtx, label func() string, where func(string) string) error {
	var err error
	switch p.key {
	case "notify":
		var nodes []*yaml.Node
		if t.Notify, nodes, err = d.strList(p.v, where("notify")); err == nil {
			for i, name := range t.Notify {
				*c.notify = append(*c.notify, notifyRef{name, nodes[i]})
			}
		}
	case "listen":
		if c.what != "handler" {
			return d.errAt(p.k, "listen is only for handlers (%s)", label())
		}
		t.Listen, _, err = d.strList(p.v, where("listen"))
	case "loop", "with_items":
		if t.Loop != nil {
			return d.errAt(p.k, "%s has both loop and with_items", label())
		}
		t.Loop, err = d.loop(p.v, where(p.key))
	case "loop_control":
		t.LoopVar, err = d.loopControl(p.v, where("loop_control"))
	case "vars":
		t.Vars, err = d.varMap(p.v, where("vars"))
	case "block", "rescue", "always":
		sub := taskCtx{what: c.what, depth: c.depth + 1, notify: c.notify}
		var list []*Task
		if list, err = d.tasks(p.v, where(p.key), sub); err == nil {
			if list == nil {
				list = []*Task{}
			}
			switch p.key {
			case "block":
				t.Block = list
			case "rescue":
				t.Rescue = list
			default:
				t.Always = list
			}
		}
	}
	return err
}
