package playbooks

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

var taskKeys = []string{
	"name", "register", "when", "failed_when", "changed_when", "until", "retries", "delay",
	"ignore_errors", "timeout", "become", "become_user", "environment", "no_log", "run_once", "tags",
	"notify", "loop", "with_items", "loop_control", "check_mode", "vars", "listen", "args",
	"block", "rescue", "always", "delegate_to", "remote_user", "ignore_unreachable", "with_list",
	"with_dict", "connection", "become_method", "diff", "throttle", "with_first_found", "with_nested",
	"with_indexed_items", "with_flattened", "with_together", "with_sequence", "with_subelements",
	"with_random_choice", "with_fileglob", "delegate_facts", "async", "poll",
}

// notOnBlock are task keys that make no sense on a block (Ansible refuses them too).
var notOnBlock = []string{
	"register", "failed_when", "changed_when", "until", "retries", "delay", "notify", "loop",
	"with_items", "loop_control", "args", "listen", "timeout", "with_list", "with_dict",
	"with_first_found", "with_nested", "with_indexed_items", "with_flattened", "with_together",
	"with_sequence", "with_subelements", "with_random_choice", "with_fileglob", "async", "poll",
}

// maxNesting bounds block nesting: real playbooks stay at two or three levels.
const maxNesting = 16

// taskCtx is what a task's decoding needs to know about where it sits.
type taskCtx struct {
	what  string // "task" or "handler"
	depth int
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
	if err == nil {
		pairs, err = d.legacyTask(pairs)
	}
	if err != nil {
		return nil, err
	}
	t := &Task{File: d.file, Line: n.Line, Column: n.Column}
	var mod *pair
	keys, err := d.taskName(t, pairs)
	if err != nil {
		return nil, err
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
		if err := d.refusedAction(p, label()); err != nil {
			return nil, err
		}
		_, known := modules[name]
		if !known && !slices.Contains(actions, name) {
			if t.ModuleSource = d.externalModule(p); t.ModuleSource == "" {
				return nil, d.unknownTaskKey(p, label())
			}
		}
		if mod != nil {
			return nil, d.errAt(p.k, "%s has two modules, %q and %q; split it into two tasks", label(), mod.key, p.key)
		}
		mod = p
		if known || t.ModuleSource != "" {
			t.Module = name
		}
	}
	for i := range pairs {
		if err := d.taskKey(t, &pairs[i], c, label); err != nil {
			return nil, err
		}
	}
	if err := d.checkShape(t, n, keys, mod, label); err != nil {
		return nil, err
	}
	if untilPair := keys["until"]; untilPair != nil && keys["retries"] == nil {
		return nil, d.errAt(untilPair.k, "%s has until but no retries; say how many times to try", label())
	}
	if t.Loop != nil && t.LoopVar == "" {
		t.LoopVar = "item"
	}
	if mod != nil && normaliseModule(mod.key) == "include_vars" {
		return t, d.includeVars(t, mod)
	}
	if mod != nil && t.Module == "" {
		return t, d.actionTask(t, mod, keys, c, label)
	}
	if mod != nil {
		return t, d.moduleArgs(t, mod, keys["args"], label())
	}
	return t, nil
}

// taskName indexes a task's keys (the last of a repeated one wins) and reads its name into t.
func (d *decoder) taskName(t *Task, pairs []pair) (map[string]*pair, error) {
	keys := map[string]*pair{}
	for i := range pairs {
		p := &pairs[i]
		keys[p.key] = p
		if p.key == "name" {
			var err error
			if t.Name, err = d.str(p.v, "name"); err != nil {
				return nil, err
			}
		}
	}
	return keys, nil
}

// actionTask decodes an import, include or meta task and refuses the keywords it cannot carry.
func (d *decoder) actionTask(t *Task, act *pair, keys map[string]*pair, c taskCtx, label func() string) error {
	name := normaliseModule(act.key)
	allowed := includeKeys
	switch {
	case name == "meta":
		allowed = metaKeys
	case strings.HasPrefix(name, "import_"):
		allowed = slices.DeleteFunc(slices.Clone(taskKeys), func(k string) bool { return slices.Contains(notOnBlock, k) })
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if k != act.key && !slices.Contains(allowed, k) {
			hint := ""
			if k == "loop" || k == "with_items" {
				hint = "; loop over include_tasks or include_role instead"
			}
			return d.errAt(keys[k].k, "%q on %s is not supported by kupgrade (%s)%s", k, name, label(), hint)
		}
	}
	return d.action(t, act, c, label)
}

// unknownTaskKey explains a key that is neither a keyword kupgrade runs nor a module it has:
// an Ansible keyword or module kupgrade does not support is said so, by its whole name; a typo
// gets a suggestion.
func (d *decoder) unknownTaskKey(p *pair, label string) error {
	switch {
	case slices.Contains(ansibleTaskKeys, p.key):
		return d.errAt(p.k, "task keyword %q is not supported by kupgrade (%s)", p.key, label)
	case p.key == "include" || p.key == "ansible.builtin.include":
		return d.errAt(p.k, "include was removed from Ansible and is not supported by kupgrade (%s); use include_tasks or import_tasks", label)
	case strings.HasPrefix(p.key, "with_"):
		return d.errAt(p.k, "%q is not supported by kupgrade (%s); it loops with loop and with_%s", p.key, label,
			strings.Join(withLoops, ", with_"))
	}
	hint := suggest(normaliseModule(p.key), append(append(slices.Clone(taskKeys), actions...), moduleNames...))
	if hint != "" && (!strings.Contains(p.key, ".") || strings.HasPrefix(p.key, "ansible.")) {
		return d.errAt(p.k, "unknown key %q in %s%s", p.key, label, hint)
	}
	_, searched := d.pyModule(p.key)
	return d.errAt(p.k, "module %q is not supported by kupgrade (%s); it runs %s, and Ansible's modules written in Python, but found none named %s in %s",
		p.key, label, strings.Join(moduleNames, ", "), p.key, strings.Join(searched, ", "))
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
	if dyn, err := d.templated(&t.Templated, templatedKeys, p.key, p.v, where(p.key)); dyn || err != nil {
		return err
	}
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
	case "delegate_to":
		t.DelegateTo, err = d.templateStr(p.v, where("delegate_to"))
	case "remote_user":
		t.RemoteUser, err = d.templateStr(p.v, where("remote_user"))
	case "connection":
		t.Connection, err = d.connection(p.v, where("connection"))
	case "diff":
		t.Diff, err = d.boolPtr(p.v, where("diff"))
	case "become_method":
		err = d.onlyValue(p, where(p.key))
	case "ignore_unreachable":
		t.IgnoreUnreachable, err = d.boolPtr(p.v, where("ignore_unreachable"))
	case "delegate_facts":
		t.DelegateFacts, err = d.boolPtr(p.v, where("delegate_facts"))
	case "async":
		t.Async, err = d.seconds(p.v, where("async"))
	case "poll":
		if t.Poll, err = d.seconds(p.v, where("poll")); err == nil && isZero(t.Poll) {
			err = d.errAt(p.v, "poll: 0 of %s is not supported by kupgrade: it runs a task to its end before the next, so it cannot leave one running to be collected by async_status; give poll a number of seconds above 0", label())
		}
	case "throttle":
		t.Throttle, err = d.integer(p.v, where("throttle"))
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
		// A name no handler answers to fails only when a changed task notifies it, as in
		// Ansible (the runner's unknownHandler).
		t.Notify, _, err = d.strList(p.v, where("notify"))
	case "listen":
		if c.what != "handler" {
			return d.errAt(p.k, "listen is only for handlers (%s)", label())
		}
		t.Listen, _, err = d.strList(p.v, where("listen"))
	case "loop", "with_items", "with_list", "with_dict", "with_first_found", "with_nested",
		"with_indexed_items", "with_flattened", "with_together", "with_sequence", "with_subelements",
		"with_random_choice", "with_fileglob":
		err = d.loopKey(t, p, label, where)
	case "loop_control":
		err = d.loopControl(t, p.v, where("loop_control"))
	case "vars":
		t.Vars, err = d.varMap(p.v, where("vars"))
	case "block", "rescue", "always":
		sub := taskCtx{what: c.what, depth: c.depth + 1}
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
