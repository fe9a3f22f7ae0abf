package runner

import (
	"fmt"
	"slices"

	"github.com/kupgrade/kupgrade/internal/fault"
)

// notifyHandlers marks the handlers a changed task notifies on h. A name that no handler of the
// play answers to (by its name, a listen topic or "role : name") ends the run, as in Ansible,
// where the same playbook loads and fails only once a changed task notifies the missing handler.
func (e *playExec) notifyHandlers(h *hostState, t *ctask) {
	for _, n := range t.notify {
		if !answers(e.handlers, n) {
			e.abort(fault.Mark(fmt.Errorf("%s: task %q notifies %q: the requested handler %q was not found in either the main handlers list nor in the listening handlers list; add a handler with that name or listen topic, or fix the notify",
				e.taskAt(t), t.name, n, n), fault.ErrBadInput))
			return
		}
		h.notified[n] = true
	}
}

// answers says whether some handler, or a task in a handler's block, answers to name.
func answers(handlers []*ctask, name string) bool {
	for _, hd := range handlers {
		if slices.Contains(hd.listen, name) || answers(hd.block, name) {
			return true
		}
	}
	return false
}

// abort ends the playbook with err after the task running now: no later task or handler runs.
// The first error wins.
func (e *playExec) abort(err error) {
	e.fatalMu.Lock()
	defer e.fatalMu.Unlock()
	if e.fatal == nil {
		e.fatal = err
	}
	e.stop, e.over = true, true
}
