package runner

import (
	"context"

	"github.com/kupgrade/kupgrade/playbooks"
)

// runList runs tasks in lockstep over hosts: each task on every active host before the next.
// p is non-nil for the play's top level, where any_errors_fatal and max_fail_percentage apply
// (inside a block a failure may still be rescued).
func (e *playExec) runList(ctx context.Context, hosts []*hostState, tasks []*ctask, p *playbooks.Play) {
	for _, t := range tasks {
		if e.stop || e.endBatch || ctx.Err() != nil {
			return
		}
		e.runOne(ctx, hosts, t, true)
		if p != nil {
			e.checkFatal(hosts, p)
		}
	}
}

// runOne runs one entry of a task list (or a handler, which tags do not select) on hosts.
func (e *playExec) runOne(ctx context.Context, hosts []*hostState, t *ctask, tagged bool) {
	switch {
	case t.t.IsBlock():
		e.runBlock(ctx, hosts, t)
	case t.t.Meta == "flush_handlers":
		e.runHandlers(ctx, hosts, e.handlers)
	case tagged && !selected(t.tags, e.po.Tags, e.po.SkipTags):
	case t.t.Meta != "":
		e.runMeta(hosts, t)
	case t.t.Include != nil:
		e.runInclude(ctx, hosts, t)
	default:
		e.step(ctx, hosts, t)
	}
}

// runBlock runs block, then rescue on the hosts that failed in it, then always on every host
// that entered, as Ansible does. A host whose rescue succeeds is back in the play (rescued).
func (e *playExec) runBlock(ctx context.Context, hosts []*hostState, b *ctask) {
	entered := active(hosts)
	if len(entered) == 0 {
		return
	}
	defer e.enterBlock(entered, b)()
	e.runList(ctx, entered, b.block, nil)
	var failed []*hostState
	for _, h := range entered {
		if h.failed && !h.unreachable {
			failed = append(failed, h)
		}
	}
	if len(failed) > 0 && len(b.rescue) > 0 {
		for _, h := range failed {
			// Ansible counts a host rescued when it enters rescue, whether or not the rescue
			// then succeeds (a failing rescue shows rescued=1 and failed=1).
			if !h.quiet {
				h.recap.Rescued++
			}
			h.failed, h.err, h.quiet = false, nil, false
			h.vars["ansible_failed_task"] = map[string]any{"name": h.lastTask}
			h.vars["ansible_failed_result"] = h.lastResult
		}
		e.runList(ctx, failed, b.rescue, nil)
	}
	if len(b.always) == 0 {
		return
	}
	// always runs on hosts that failed too; their failure stands unless always fails them anew.
	type held struct {
		h   *hostState
		err *HostError
	}
	var holds []held
	var run []*hostState
	for _, h := range entered {
		if h.unreachable {
			continue
		}
		if h.failed {
			holds = append(holds, held{h, h.err})
			h.failed, h.err = false, nil
		}
		run = append(run, h)
	}
	e.runList(ctx, run, b.always, nil)
	for _, x := range holds {
		if !x.h.failed {
			x.h.failed, x.h.err = true, x.err
		}
	}
}

// step runs one task on every active host (Forks at a time), then publishes what the hosts
// registered so the next task's templates see it through hostvars.
func (e *playExec) step(ctx context.Context, hosts []*hostState, t *ctask) {
	act := active(hosts)
	if len(act) == 0 {
		return
	}
	// run_once and throttle act on the batch: their templates see its first host's variables.
	runOnce, throttle := t.runOnce, t.throttle
	if bt, bad := e.withKeywords(act[0], t); bad == nil {
		runOnce, throttle = bt.runOnce, bt.throttle
	}
	if runOnce || t.modName == "pause" {
		first := act[0]
		e.runTask(ctx, first, t)
		if runOnce && first.failed && !first.unreachable {
			for _, h := range act[1:] { // Ansible fails every host of the batch with it
				h.failed, h.quiet = true, true
			}
		}
		// The result of a run_once task belongs to every host of the batch, as in Ansible. pause
		// runs once too (Ansible's BYPASS_HOST_LOOP action), but only the first host has its
		// result: the others neither count nor register it, as in ansible-core 2.14.
		for _, h := range act[1:] {
			if !runOnce {
				break
			}
			for _, k := range first.pending {
				h.set(e, k, first.vars[k], first.registered[k])
			}
		}
	} else if t.modName == "group_by" {
		// One host after the other, in the play's order: Ansible adds the hosts to the groups
		// (and the groups to their parents) in that order, which groups['x'] shows. group_by
		// runs on this machine, so nothing waits on a host.
		for _, h := range act {
			e.runTask(ctx, h, t)
		}
	} else {
		e.parallelN(act, throttle, func(h *hostState) { e.runTask(ctx, h, t) })
	}
	for _, h := range act {
		h.publish()
	}
	e.flushDynamic()
}

func (e *playExec) runHandlers(ctx context.Context, hosts []*hostState, handlers []*ctask) {
	// A topic is consumed only once every handler has had its turn: every handler that listens
	// to a notified topic runs (as in Ansible), not only the first one.
	var consumed []func()
	defer func() {
		for _, c := range consumed {
			c() // once per play, however often it was notified
		}
	}()
	for _, hd := range handlers {
		var run []*hostState
		for _, h := range active(hosts) {
			for _, name := range hd.listen {
				if name != "" && h.notified[name] {
					run = append(run, h)
					break
				}
			}
		}
		for _, h := range run {
			consumed = append(consumed, func() {
				for _, name := range hd.listen {
					delete(h.notified, name)
				}
			})
		}
		if len(run) > 0 {
			e.runOne(ctx, run, hd, false)
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// checkFatal ends the play for every host after a failure under any_errors_fatal, or when the
// batch's failed share exceeds max_fail_percentage.
func (e *playExec) checkFatal(batch []*hostState, p *playbooks.Play) {
	failed := 0
	for _, h := range batch {
		if h.failed {
			failed++
		}
	}
	if failed == 0 {
		return
	}
	if p.AnyErrorsFatal {
		e.stop, e.over = true, true
	}
	if p.MaxFailPercentage != nil && float64(failed)*100/float64(len(batch)) > *p.MaxFailPercentage {
		e.stop, e.over = true, true
	}
}

func active(hosts []*hostState) []*hostState {
	n := 0
	for _, h := range hosts {
		if !h.failed && !h.ended {
			n++
		}
	}
	if n == len(hosts) {
		return hosts
	}
	out := make([]*hostState, 0, n)
	for _, h := range hosts {
		if !h.failed && !h.ended {
			out = append(out, h)
		}
	}
	return out
}
