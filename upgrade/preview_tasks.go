package upgrade

import (
	"cmp"
	"errors"
	"maps"
	"regexp"
	"strings"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/playbooks"
)

// plannedTasks is pb's tasks as they would run on hosts: task by task, one entry per host, each
// name, command and condition rendered with that host's variables (the inventory's, the play's,
// and varsFor(host), the ones the step passes). Nothing is read from the hosts.
func (w *Workflow) plannedTasks(pb *playbooks.Playbook, hosts []string, varsFor func(string) map[string]any) []PlannedTask {
	var out []PlannedTask
	for _, play := range pb.Plays {
		tasks := flatten(play.Tasks)
		registered := map[string]bool{}
		for _, t := range tasks {
			registered[t.Register] = t.Register != ""
		}
		scopes := make([]map[string]any, len(hosts))
		for i, name := range hosts {
			scopes[i] = hostScope(w.Inventory, name, play, varsFor(name))
		}
		for _, t := range tasks {
			for i, name := range hosts {
				out = append(out, plannedLoop(t, name, scopes[i], registered)...)
			}
		}
	}
	return out
}

// plannedLoop is t on host, once per item when t has a loop whose list the plan already knows
// (a list, or a template of the step's variables: one line per version of download-images);
// a with_* lookup or a list known only at run time leaves one line, whose note says so.
func plannedLoop(t *playbooks.Task, host string, scope map[string]any, registered map[string]bool) []PlannedTask {
	items, ok := knownItems(t, scope)
	if !ok {
		return []PlannedTask{plannedTask(t, host, scope, registered)}
	}
	loopVar := cmp.Or(t.LoopVar, "item")
	out := make([]PlannedTask, 0, len(items))
	for _, it := range items {
		s := maps.Clone(scope)
		s[loopVar] = it
		out = append(out, plannedTask(t, host, s, registered))
	}
	return out
}

// knownItems is t's loop list rendered with scope, when it renders to a list now.
func knownItems(t *playbooks.Task, scope map[string]any) ([]any, bool) {
	if t.Loop == nil || t.LoopWith != "" || t.LoopDict {
		return nil, false
	}
	v, err := jinja.RenderValue(t.Loop, scope)
	items, ok := v.([]any)
	return items, err == nil && ok
}

// flatten is ts in the order they run, blocks opened (rescue and always after the block).
func flatten(ts []*playbooks.Task) []*playbooks.Task {
	var out []*playbooks.Task
	for _, t := range ts {
		if t.IsBlock() {
			out = append(out, flatten(t.Block)...)
			out = append(out, flatten(t.Rescue)...)
			out = append(out, flatten(t.Always)...)
			continue
		}
		out = append(out, t)
	}
	return out
}

// hostScope is what a play's templates read on host, ranked as the runner ranks them: role
// defaults, the inventory's variables, the magic ones, the play's vars (kept as written: read
// lazily), the role vars, and the step's variables last, as extra vars.
func hostScope(inv *inventory.Inventory, host string, play *playbooks.Play, step map[string]any) map[string]any {
	v := maps.Clone(play.RoleDefaults)
	if v == nil {
		v = map[string]any{}
	}
	groups := map[string]any{}
	hostvars := map[string]any{}
	for _, h := range inv.Hosts {
		hostvars[h.Name] = h.Vars
	}
	for g, names := range inv.Groups {
		groups[g] = anySlice(names)
	}
	if h, ok := inv.Host(host); ok {
		maps.Copy(v, h.Vars)
		v["group_names"] = anySlice(withoutAll(h.Groups))
	}
	v["inventory_hostname"] = host
	v["inventory_hostname_short"], _, _ = strings.Cut(host, ".")
	v["groups"], v["hostvars"] = groups, hostvars
	maps.Copy(v, play.Vars)
	maps.Copy(v, play.RoleVars)
	maps.Copy(v, step)
	return v
}

func withoutAll(groups []string) []string {
	var out []string
	for _, g := range groups {
		if g != "all" {
			out = append(out, g)
		}
	}
	return out
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// expr is one {{ }} expression of a template.
var expr = regexp.MustCompile(`(?s)\{\{.*?\}\}`)

// shown renders s with vars for the plan. When a variable it reads is known only at run time
// (a registered result, a fact), each {{ }} is rendered on its own and one that cannot be stands
// as <name>; missing lists those names. The text never holds a template: a {% %} that cannot be
// rendered leaves "" with missing set.
func shown(s string, vars map[string]any) (text string, missing []string) {
	if out, err := jinja.RenderString(s, vars); err == nil {
		return out, nil
	}
	out := expr.ReplaceAllStringFunc(s, func(e string) string {
		r, err := jinja.RenderString(e, vars)
		if err == nil {
			return r
		}
		name := undefinedName(err)
		missing = append(missing, name)
		return "<" + name + ">"
	})
	if strings.Contains(out, "{%") || strings.Contains(out, "{{") {
		return "", append(missing, "a template")
	}
	return out, missing
}

// undefinedName is the variable err says is undefined, or "a value" for another error.
func undefinedName(err error) string {
	var u *jinja.UndefinedError
	if errors.As(err, &u) {
		return u.Name
	}
	return "a value"
}
