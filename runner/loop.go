package runner

import (
	"context"
	"fmt"
	"time"
)

// runLoop runs t once per item of its loop and gathers the results as Ansible does. The gate is
// asked before every item after the first (runTask asked before the first): once the lease is
// lost, no further item starts.
func (e *playExec) runLoop(ctx context.Context, h *hostState, t *ctask) (map[string]any, error) {
	lv, err := renderLoop(t, h.vars)
	if err != nil {
		return e.loopFailure(h, t, err), nil
	}
	items, err := e.loopItems(t, lv)
	if err != nil {
		return tmplFailure(t, "", err), nil
	}
	if len(items) == 0 { // Ansible skips a task whose loop has no items
		return map[string]any{"changed": false, "skipped": true, "skipped_reason": "No items in the list",
			"results": []any{}}, nil
	}
	pause, err := e.duration(h, t.t.LoopControl.Pause, 0)
	if err != nil {
		return failure("loop_control pause: " + err.Error()), nil
	}
	results := make([]any, 0, len(items))
	for i := range items {
		if i > 0 {
			if r, cause := e.nextItem(ctx, pause, i); cause != nil {
				return r, cause
			}
		}
		r, cause := e.runItem(ctx, h, t, items, i)
		results = append(results, r)
		if (t.modName == "set_fact" || t.modName == "include_vars") && !(t.delegateFacts && t.delegate != "") {
			e.applyFacts(h, t, r, i) // the next items see them, as in Ansible: set_fact accumulates
		}
		if cause != nil || itemStops(h, r) {
			return r, cause
		}
	}
	return loopResult(results), nil
}

// nextItem waits the loop's pause, then asks the gate for item i (counted from 0).
func (e *playExec) nextItem(ctx context.Context, pause time.Duration, i int) (map[string]any, error) {
	if pause > 0 {
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return failure("interrupted: " + ctx.Err().Error()), ctx.Err()
		}
	}
	return e.gate(ctx, fmt.Sprintf("loop item %d", i+1))
}

// runItem runs t for item i with the loop's variables, and marks its result with them.
func (e *playExec) runItem(ctx context.Context, h *hostState, t *ctask, items []any, i int) (map[string]any, error) {
	lc := t.t.LoopControl
	mark := len(h.stack)
	extra := loopVars(lc, items, i)
	h.push(t.loopVar, items[i])
	for k, v := range extra {
		h.push(k, v)
	}
	r, cause := e.itemOnce(ctx, h, t)
	h.pop(mark)
	r[t.loopVar] = items[i]
	r["ansible_loop_var"] = t.loopVar
	for k, v := range extra {
		r[k] = v
	}
	if lc.IndexVar != "" {
		r["ansible_index_var"] = lc.IndexVar
	}
	return r, cause
}

// loopDone is a loop's msg when no item failed, as Ansible's; the text report does not repeat it.
const loopDone = "All items completed"

// loopSkipped is the msg of a loop whose every item was skipped, as ansible-core 2.14's.
const loopSkipped = "All items skipped"

// loopResult is a finished loop's result: changed or failed when any item was, skipped when
// every item was (and there was one). As Ansible's, it has a failed key only when an item failed.
func loopResult(results []any) map[string]any {
	changed, failed, skipped := false, false, len(results) > 0
	for _, x := range results {
		r := x.(map[string]any)
		changed = changed || truth(r["changed"])
		failed = failed || truth(r["failed"])
		skipped = skipped && truth(r["skipped"])
	}
	res := map[string]any{"results": results, "changed": changed, "skipped": skipped, "msg": loopDone}
	switch {
	case failed:
		res["failed"], res["msg"] = true, "One or more items failed"
	case skipped:
		res["msg"] = loopSkipped
	}
	return res
}
