package runner

import (
	"maps"
	"sync"
)

// dynState collects, while a task runs on its hosts, what it changes beyond the host running
// it: facts given to another host (delegate_facts) and hosts moved into groups (group_by).
// The inventory changes at once, under mu; the variables templates read (hostvars, groups,
// group_names) change at the barrier after the task (flushDynamic), when no host runs.
type dynState struct {
	mu        sync.Mutex
	delegated []delegatedFacts
	regrouped bool
}

type delegatedFacts struct {
	host  string
	facts map[string]any
	noLog bool
}

// groupBy puts h in the group a group_by result names, and sets the result's changed as
// Ansible does: true when the host was not in the group yet.
func (e *playExec) groupBy(h *hostState, res map[string]any) {
	name, _ := res["add_group"].(string)
	parents := anyStrings(res["parent_groups"])
	e.dyn.mu.Lock()
	defer e.dyn.mu.Unlock()
	changed, err := e.inv.AddToGroup(h.name, name, parents)
	if err != nil {
		res["failed"], res["msg"] = true, err.Error()
		return
	}
	res["changed"] = changed
	e.dyn.regrouped = true
}

// delegateFacts keeps the facts of a result for the host the task was delegated to, and only
// for it: under run_once too (where facts otherwise go to the whole batch), as Ansible does.
// A loop item's facts go to that item's delegate_to host (item is its index, else -1).
func (e *playExec) delegateFacts(h *hostState, t *ctask, facts map[string]any, item int) bool {
	var name string
	if item >= 0 && item < len(t.itemHosts) {
		name = t.itemHosts[item]
	} else if target, err := e.delegateHost(h, t); err == nil {
		name = target.Name
	}
	if name == "" {
		return false
	}
	e.dyn.mu.Lock()
	defer e.dyn.mu.Unlock()
	e.dyn.delegated = append(e.dyn.delegated, delegatedFacts{host: name, facts: facts, noLog: t.noLog})
	return true
}

// flushDynamic applies, between tasks, what the last task changed on other hosts: the
// delegated facts (on the host when it is in the play, else kept for the plays that follow and
// shown in its hostvars now), and the groups and group_names after a group_by.
func (e *playExec) flushDynamic() {
	for _, d := range e.dyn.delegated {
		if hs := e.states[d.host]; hs != nil {
			for k, v := range d.facts {
				shown := v
				if d.noLog {
					shown = censored
				}
				hs.set(e, k, v, shown)
			}
			hs.publish()
			continue
		}
		if e.kept[d.host] == nil {
			e.kept[d.host] = map[string]any{}
		}
		maps.Copy(e.kept[d.host], d.facts)
		hv, _ := e.hostvars[d.host].(map[string]any)
		hv = maps.Clone(hv)
		if hv == nil {
			hv = map[string]any{}
		}
		maps.Copy(hv, d.facts)
		e.hostvars[d.host] = hv
	}
	e.dyn.delegated = nil
	if !e.dyn.regrouped {
		return
	}
	e.dyn.regrouped = false
	for g, names := range e.inv.Groups {
		e.groupsVar[g] = toAnySlice(names)
	}
	for _, hs := range e.states {
		hs.vars["group_names"] = groupNames(hs.host.Groups)
		hs.pub["group_names"] = hs.vars["group_names"]
	}
}

func anyStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
