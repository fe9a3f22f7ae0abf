package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/playbooks"
)

// enterBlock sets what a block holds for its tasks on every host that enters it: the params of
// an include or role (over set_fact, as Ansible ranks them) and a private role's defaults and
// vars. The returned func restores the hosts' variables.
func (e *playExec) enterBlock(hosts []*hostState, b *ctask) (leave func()) {
	params, role := b.t.Params, b.t.Role
	if len(params) == 0 && (role == nil || !role.Private) {
		return func() {}
	}
	marks := make([]int, len(hosts))
	for i, h := range hosts {
		marks[i] = len(h.stack)
		var err error
		if role != nil && role.Private {
			err = e.pushRole(h, role)
		}
		if err == nil {
			err = e.pushEach(h, params, true, func(string) bool { return true })
		}
		if err != nil {
			e.finish(h, b, failure(err.Error()), nil, time.Now())
		}
	}
	return func() {
		for i, h := range hosts {
			h.pop(marks[i])
		}
	}
}

// pushRole sets an included role's defaults (where nothing else set the name) and vars (where
// no set_fact did).
func (e *playExec) pushRole(h *hostState, r *playbooks.Role) error {
	err := e.pushEach(h, r.Defaults, false, func(k string) bool { _, set := h.vars[k]; return !set })
	if err != nil {
		return fmt.Errorf("role %s defaults: %w", r.Name, err)
	}
	if err := e.pushEach(h, r.Vars, false, func(k string) bool { return !h.facts[k] && h.strong[k] == 0 }); err != nil {
		return fmt.Errorf("role %s vars: %w", r.Name, err)
	}
	return nil
}

// pushEach renders and pushes vals that ok accepts and no extra var overrides.
func (e *playExec) pushEach(h *hostState, vals map[string]any, strong bool, ok func(string) bool) error {
	return e.renderEach(vals, h.vars, ok, func(k string, v any) { h.pushLevel(k, v, strong) })
}

// runMeta runs a meta task (flush_handlers is runList's): end_host takes the hosts whose when
// holds out of the play, end_play and end_batch end the play or the batch for all.
func (e *playExec) runMeta(hosts []*hostState, t *ctask) {
	for _, h := range active(hosts) {
		ok, err := e.whenTrue(h, t)
		if err != nil {
			e.finish(h, t, failure(err.Error()), nil, time.Now())
			continue
		}
		if !ok {
			continue
		}
		switch t.t.Meta {
		case "end_host":
			h.ended = true
		case "end_play":
			e.stop = true
		case "end_batch":
			e.endBatch = true
		}
	}
}

func (e *playExec) whenTrue(h *hostState, t *ctask) (bool, error) {
	for _, c := range t.when {
		ok, err := jinja.Cond(c, h.vars)
		if err != nil {
			return false, fmt.Errorf("when %q: %v", c, err)
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// incRun is one file an include brings in, with the hosts that include it with the same params.
type incRun struct {
	tasks  []*ctask
	hosts  []*hostState
	params []map[string]any
}

// runInclude decides an include_tasks or include_role on every host (its when, its loop, the
// file it names), then runs each included file on the hosts that included it, in lockstep, with
// the include's params (and loop item) set for its tasks.
func (e *playExec) runInclude(ctx context.Context, hosts []*hostState, t *ctask) {
	var runs []*incRun
	byKey := map[string]*incRun{}
	tooDeep := e.includeTooDeep(t)
	for _, h := range active(hosts) {
		start := time.Now()
		e.r.report(Event{Time: start, Event: EventTaskStart, Host: h.name, Task: t.name})
		items, res := e.includeItems(h, t)
		for _, it := range items {
			key, _ := json.Marshal([]any{it.file, it.params})
			r := byKey[string(key)]
			if r == nil {
				if tooDeep != nil {
					res = failure(tooDeep.Error())
					break
				}
				tasks, err := e.includedTasks(t, it.file)
				if err != nil {
					res = failure(err.Error())
					break
				}
				r = &incRun{tasks: tasks}
				byKey[string(key)] = r
				runs = append(runs, r)
			}
			r.hosts = append(r.hosts, h)
			r.params = append(r.params, it.params)
		}
		e.finish(h, t, res, nil, start)
		if !truth(res["failed"]) && !truth(res["skipped"]) {
			// Ansible counts an include_tasks ok once per file (each loop item) it brings in,
			// and an include_role not at all.
			n := len(items)
			if t.t.Include.File == "" {
				n = 0
			}
			h.recap.OK += n - 1
		}
	}
	for _, r := range runs {
		marks := make([]int, len(r.hosts))
		for i, h := range r.hosts {
			marks[i] = len(h.stack)
			for k, v := range r.params[i] {
				h.pushLevel(k, v, true)
			}
		}
		e.includes = append(e.includes, e.taskAt(t))
		e.runList(ctx, r.hosts, r.tasks, nil)
		e.includes = e.includes[:len(e.includes)-1]
		for i, h := range r.hosts {
			h.pop(marks[i])
		}
		if e.stop || ctx.Err() != nil {
			return
		}
	}
}

type incItem struct {
	file   string
	params map[string]any
}

// includeItems evaluates an include on one host: nothing when its when is false, else one item
// per loop item (or one), each with the file and the params rendered.
func (e *playExec) includeItems(h *hostState, t *ctask) ([]incItem, map[string]any) {
	if ok, err := e.whenTrue(h, t); err != nil || !ok {
		if err != nil {
			return nil, failure(err.Error())
		}
		return nil, map[string]any{"changed": false, "skipped": true, "skip_reason": "Conditional result was False"}
	}
	var loop []any
	if t.t.Loop != nil {
		lv, err := renderLoop(t, h.vars)
		if err != nil {
			return nil, failure("loop: " + err.Error())
		}
		if loop, err = e.loopItems(t, lv); err != nil {
			return nil, failure(err.Error())
		}
	}
	one := func(item any, index int, looped bool) (incItem, error) {
		mark := len(h.stack)
		defer h.pop(mark)
		it := incItem{file: t.t.Include.File, params: map[string]any{}}
		if looped {
			h.push(t.loopVar, item)
			it.params[t.loopVar] = item
			for k, v := range loopVars(t.t.LoopControl, loop, index) {
				h.push(k, v)
				it.params[k] = v
			}
		}
		for k, v := range t.t.Vars {
			if _, extra := e.po.ExtraVars[k]; extra {
				continue
			}
			rv, err := render(v, h.vars)
			if err != nil {
				return it, fmt.Errorf("vars: %s: %w", k, err)
			}
			it.params[k] = rv
		}
		if it.file != "" {
			f, err := jinja.RenderString(it.file, h.vars)
			if err != nil {
				return it, fmt.Errorf("include_tasks: %w", err)
			}
			it.file = f
		}
		return it, nil
	}
	var out []incItem
	if t.t.Loop == nil {
		it, err := one(nil, 0, false)
		if err != nil {
			return nil, failure(err.Error())
		}
		return []incItem{it}, map[string]any{"changed": false, "include": it.file}
	}
	for i, item := range loop {
		it, err := one(item, i, true)
		if err != nil {
			return nil, failure(err.Error())
		}
		out = append(out, it)
	}
	if len(out) == 0 {
		return nil, map[string]any{"changed": false, "skipped": true, "skip_reason": "No items in the list"}
	}
	return out, map[string]any{"changed": false, "include": t.t.Include.File}
}

// includedTasks returns the compiled tasks an include brings in: compiled with the playbook
// when its file was known then, else read (once per play and file) now.
func (e *playExec) includedTasks(t *ctask, file string) ([]*ctask, error) {
	if t.include != nil {
		return t.include, nil
	}
	path, err := playbooks.ResolveTask(file, t.t.Include.Dirs)
	if err != nil {
		return nil, err
	}
	key := includeKey{t, path}
	if c, ok := e.included[key]; ok {
		return c, nil
	}
	list, err := playbooks.LoadTasks(path)
	if err != nil {
		return nil, err
	}
	c := compileTasks(list, t.includeScope())
	e.included[key] = c
	return c, nil
}

// loopVars are the variables loop_control adds for item i: index_var and ansible_loop.
func loopVars(lc playbooks.LoopControl, items []any, i int) map[string]any {
	if lc.IndexVar == "" && !lc.Extended {
		return nil
	}
	out := map[string]any{}
	if lc.IndexVar != "" {
		out[lc.IndexVar] = i
	}
	if lc.Extended {
		n := len(items)
		l := map[string]any{"allitems": items, "index": i + 1, "index0": i, "revindex": n - i,
			"revindex0": n - i - 1, "first": i == 0, "last": i == n-1, "length": n}
		if lc.NoAllItems {
			delete(l, "allitems")
		}
		if i > 0 {
			l["previtem"] = items[i-1]
		}
		if i < n-1 {
			l["nextitem"] = items[i+1]
		}
		out["ansible_loop"] = l
	}
	return out
}

// includeKey names a file read by one include: the same file included elsewhere inherits
// other keywords.
type includeKey struct {
	t    *ctask
	path string
}

// loopItems turns a rendered loop into its items: loop takes a list, a with_* loop its
// lookup's items (withItems).
func (e *playExec) loopItems(t *ctask, v any) ([]any, error) {
	if t.t.LoopWith != "" {
		items, err := withItems(t.t.LoopWith, v, fileFinder{roleDir: t.roleDir, base: e.dir, sub: loopSubdir(t.t.Module)})
		if err != nil {
			return nil, fmt.Errorf("with_%s: %w", t.t.LoopWith, err)
		}
		return items, nil
	}
	items, ok := toList(v)
	if !ok {
		return nil, fmt.Errorf("loop: expected a list, got %s", typeName(v))
	}
	return items, nil
}
