package runner

import (
	"fmt"
	"maps"
	"strings"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/modules"
	"github.com/kupgrade/kupgrade/playbooks"
)

// hostState is one host's life in a play. Its vars map is the whole variable scope of the host
// (inventory < play vars < registered/set_fact < extra vars), built once per play and changed in
// place: registering a result writes one key, a loop item or task var is pushed and popped. Only
// the goroutine running the host's current task touches vars; other hosts read the host through
// pub (hostvars[name]), which is only written between tasks, so templates never race.
type hostState struct {
	host       *inventory.Host
	name       string
	vars       map[string]any
	pub        map[string]any
	pending    []string // names set during the current task, published at the barrier
	stack      []saved  // pushed values, restored by pop
	facts      map[string]bool
	registered map[string]any // what the recap shows (censored under no_log)
	conn       *trackedConn
	notified   map[string]bool
	recap      *HostRecap

	failed, unreachable bool
	// quiet: failed because a run_once task failed on another host of the batch. As in
	// Ansible, the host leaves the play (or enters rescue) but counts no failure or rescue.
	quiet      bool
	ended      bool           // meta: end_host: out of the play, not failed
	strong     map[string]int // names held by include or role params (over set_fact)
	err        *HostError
	lastTask   string         // ansible_failed_task in rescue
	lastResult map[string]any // ansible_failed_result in rescue
}

type saved struct {
	key    string
	val    any
	had    bool
	strong bool
}

// set stores a registered result or fact. Extra vars keep the last word, as in Ansible.
func (h *hostState) set(e *playExec, key string, val, shown any) {
	if _, ok := e.po.ExtraVars[key]; ok {
		return
	}
	h.facts[key] = true
	h.registered[key] = shown
	h.pending = append(h.pending, key)
	// A value pushed over this key (a loop item of the same name) must not bring back the old
	// value when it is popped. Include and role params outrank set_fact: while one holds the
	// name, the fact only shows once it is popped.
	held := h.strong[key] > 0
	if !held {
		h.vars[key] = val
	}
	for i := range h.stack {
		if h.stack[i].key == key {
			h.stack[i].val, h.stack[i].had = val, true
			if h.stack[i].strong {
				break
			}
		}
	}
}

// push sets key for the duration of a task or loop item; pop(mark) restores.
func (h *hostState) push(key string, val any) {
	old, had := h.vars[key]
	h.stack = append(h.stack, saved{key: key, val: old, had: had})
	h.vars[key] = val
}

// pushLevel pushes key; a strong value (include or role params) outranks set_fact.
func (h *hostState) pushLevel(key string, val any, strong bool) {
	h.push(key, val)
	if strong {
		h.stack[len(h.stack)-1].strong = true
		if h.strong == nil {
			h.strong = map[string]int{}
		}
		h.strong[key]++
	}
}

func (h *hostState) pop(mark int) {
	for i := len(h.stack) - 1; i >= mark; i-- {
		s := h.stack[i]
		if s.strong {
			h.strong[s.key]--
		}
		if s.had {
			h.vars[s.key] = s.val
		} else {
			delete(h.vars, s.key)
		}
	}
	h.stack = h.stack[:mark]
}

// publish copies this task's registered values to hostvars; called between tasks only.
func (h *hostState) publish() {
	for _, k := range h.pending {
		h.pub[k] = h.vars[k]
	}
	h.pending = h.pending[:0]
}

// buildVars makes the scope of every host of the play, once per play.
func (e *playExec) buildVars(p *playbooks.Play, hosts []*hostState) error {
	hostvars := make(map[string]any, len(e.inv.Hosts))
	for _, ih := range e.inv.Hosts {
		hostvars[ih.Name] = e.outsideVars(ih)
	}
	groups := make(map[string]any, len(e.inv.Groups)+1)
	for g, names := range e.inv.Groups {
		groups[g] = toAnySlice(names)
	}
	if _, ok := groups["all"]; !ok {
		all := make([]any, len(e.inv.Hosts))
		for i, ih := range e.inv.Hosts {
			all[i] = ih.Name
		}
		groups["all"] = all
	}
	e.hostvars, e.groupsVar = hostvars, groups
	for name, kept := range e.kept {
		if hv, ok := hostvars[name].(map[string]any); ok && len(kept) > 0 {
			hv = maps.Clone(hv) // facts of a host outside this play, given by delegate_facts
			maps.Copy(hv, kept)
			hostvars[name] = hv
		}
	}
	playHosts := make([]any, len(hosts))
	for i, h := range hosts {
		playHosts[i] = h.name
	}
	magic := e.playMagic(p, hosts)
	for _, h := range hosts {
		v := make(map[string]any, len(h.host.Vars)+len(p.Vars)+len(e.po.ExtraVars)+12)
		for k, x := range p.RoleDefaults {
			v[k] = x // under the inventory's, as Ansible ranks role defaults
		}
		for k, x := range h.host.Vars {
			v[k] = x
		}
		e.magicVars(v, h.host)
		maps.Copy(v, magic)
		v["groups"] = groups
		v["hostvars"] = hostvars
		v["ansible_play_hosts"] = playHosts
		v["play_hosts"] = playHosts
		v[jinja.LookupKey] = lookups{e}
		for k, x := range e.po.ExtraVars {
			v[k] = x
		}
		v[jinja.DataKey] = h.facts
		h.vars = v
		// Play vars are kept as written: a template in one is rendered when it is read, with
		// the host's variables, so they may refer to each other in any order (Ansible's lazy
		// templating). A play var never overrides an extra var.
		for k, x := range p.Vars {
			if _, ok := e.po.ExtraVars[k]; !ok {
				v[k] = x
			}
		}
		if err := e.scopeLayers(p, h, v); err != nil {
			return err
		}
		h.pub = make(map[string]any, len(v))
		for k, x := range v {
			if k != "hostvars" && k != "groups" && k != jinja.DataKey && k != jinja.LookupKey {
				h.pub[k] = x
			}
		}
		hostvars[h.name] = h.pub
	}
	return nil
}

// magicVars sets the variables Ansible gives every host, in the play or not, which its
// hostvars show too (hostvars['other'].group_names).
func (e *playExec) magicVars(v map[string]any, ih *inventory.Host) {
	v["inventory_hostname"] = ih.Name
	v["inventory_hostname_short"], _, _ = strings.Cut(ih.Name, ".")
	v["group_names"] = groupNames(ih.Groups)
	v["ansible_check_mode"] = e.po.Check
	v["playbook_dir"] = e.dir
	v["ansible_version"] = ansibleVersion()
}

// outsideVars is the hostvars entry of a host as the play starts: its inventory variables and
// the magic ones; the play's hosts have theirs replaced by their whole scope.
func (e *playExec) outsideVars(ih *inventory.Host) map[string]any {
	v := make(map[string]any, len(ih.Vars)+6)
	maps.Copy(v, ih.Vars)
	jinja.CopyOrder(v, ih.Vars)
	e.magicVars(v, ih)
	return v
}

func toAnySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// render templates strings (recursively through maps and lists, leaving out what renders to
// omit); values without templates are returned as they are, without copying.
func render(v any, vars map[string]any) (any, error) {
	return jinja.RenderValue(v, vars)
}

func hasTemplate(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, "{{") || strings.Contains(x, "{%")
	case map[string]any:
		for _, y := range x {
			if hasTemplate(y) {
				return true
			}
		}
	case []any:
		for _, y := range x {
			if hasTemplate(y) {
				return true
			}
		}
	}
	return false
}

// renderEnv templates the values of a task's environment with the host's variables, as Ansible
// does (`PATH: "{{ ansible_env.PATH }}:/opt/bin"`); env itself is left as it is.
func renderEnv(env map[string]string, vars map[string]any) (map[string]string, error) {
	var out map[string]string
	for k, v := range env {
		if !hasTemplate(v) {
			continue
		}
		r, err := jinja.RenderString(v, vars)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		if out == nil {
			out = maps.Clone(env)
		}
		out[k] = r
	}
	if out == nil {
		return env, nil
	}
	return out, nil
}

// tmplFailure is the result of a task whose template or condition failed (an undefined
// variable, most often): the message names the task's place in its playbook, as Ansible says
// where "the error appears to be".
func tmplFailure(t *ctask, what string, err error) map[string]any {
	msg := err.Error()
	if what != "" {
		msg = what + ": " + msg
	}
	if t.t.File != "" && t.t.Line > 0 {
		msg = fmt.Sprintf("%s:%d:%d: %s", t.t.File, t.t.Line, t.t.Column, msg)
	}
	return failure(msg)
}

// groupNames is Ansible's group_names: the host's groups, sorted, without "all".
func groupNames(groups []string) []any {
	out := make([]any, 0, len(groups))
	for _, g := range groups {
		if g != "all" {
			out = append(out, g)
		}
	}
	return out
}

// ansibleVersion is the ansible_version magic variable as Ansible sets it, for the
// ansible-core release kupgrade follows: roles check it (ansible_version.full is
// version('2.14', '>=')) before anything else.
func ansibleVersion() map[string]any {
	return map[string]any{"string": modules.AnsibleVersion, "full": modules.AnsibleVersion, "major": 2, "minor": 14, "revision": 18}
}
