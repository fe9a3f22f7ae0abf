package runner

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/modules"
)

// applyFacts sets the facts a result returns (set_fact, include_vars, setup), unless it failed.
// item is the loop item's index, or -1 for the task's own result.
func (e *playExec) applyFacts(h *hostState, t *ctask, res map[string]any, item int) {
	facts, ok := res["ansible_facts"].(map[string]any)
	if !ok || truth(res["failed"]) {
		return
	}
	if t.delegateFacts && t.delegate != "" && e.delegateFacts(h, t, facts, item) {
		return
	}
	for k, v := range facts {
		if t.noLog {
			h.set(e, k, v, censored)
		} else {
			h.set(e, k, v, v)
		}
	}
}

// finish records one host's result of a task: register, set_fact, counts, notify, the event,
// and the host's failure.
func (e *playExec) finish(h *hostState, t *ctask, res map[string]any, cause error, start time.Time) {
	if _, ok := res["add_group"]; ok && !truth(res["failed"]) {
		e.groupBy(h, res)
	}
	shown := res
	if t.noLog {
		shown = map[string]any{"censored": censored, "changed": res["changed"], "failed": res["failed"],
			"skipped": res["skipped"]}
	}
	if t.t.Register != "" {
		h.set(e, t.t.Register, res, shown)
	}
	e.applyFacts(h, t, res, -1)
	if items, ok := res["results"].([]any); ok {
		for i, it := range items {
			if r, ok := it.(map[string]any); ok {
				e.applyFacts(h, t, r, i) // each loop item's facts (include_vars with_first_found)
			}
		}
	}
	h.lastTask, h.lastResult = t.name, shown
	ev := Event{Time: time.Now(), Host: h.name, Task: t.name, Duration: time.Since(start)}
	e.describe(&ev, t, res)
	changed := truth(res["changed"])
	switch {
	case h.conn != nil && h.conn.lost != nil || truth(res["unreachable"]):
		e.lost(h, t, res, ev)
		return
	case truth(res["failed"]):
		ev.Event = EventTaskFailed
		ev.Changed = changed
		if t.ignore && cause == nil {
			// Ansible counts an ignored failure ok (and changed) as well as ignored.
			ev.Ignored = true
			h.recap.Ignored++
			h.recap.OK++
			if changed {
				h.recap.Changed++
			}
			e.r.report(ev)
			return
		}
		e.r.report(ev)
		h.failed = true
		h.err = e.hostError(h, t, res, cause)
		return
	case truth(res["skipped"]):
		ev.Event = EventTaskSkipped
		h.recap.Skipped++
	case changed:
		ev.Event = EventTaskChanged
		ev.Changed = true
		h.recap.OK++
		h.recap.Changed++
		e.notifyHandlers(h, t)
	default:
		ev.Event = EventTaskOK
		h.recap.OK++
	}
	e.r.report(ev)
}

// lost records a task that could not reach its host: the connection leaves the pool, and the
// host the play, unless the task has ignore_unreachable (Ansible counts it ok and ignored; the
// host stays and its next task dials again).
func (e *playExec) lost(h *hostState, t *ctask, res map[string]any, ev Event) {
	err := errors.New(str(res["msg"]))
	if h.conn != nil {
		if h.conn.lost != nil {
			err = h.conn.lost
		}
		key := h.name
		if h.conn.key != "" {
			key = h.conn.key
		}
		e.r.drop(key, h.conn.Conn)
	}
	if !t.ignoreUnreachable {
		e.unreachable(h, t.name, err)
		return
	}
	h.conn = nil
	ev.Event, ev.Ignored, ev.Msg = EventHostUnreachable, true, err.Error()
	h.recap.OK++
	h.recap.Ignored++
	e.r.report(ev)
}

// describe fills an event from a result; under no_log only the outcome shows.
func (e *playExec) describe(ev *Event, t *ctask, res map[string]any) {
	if t.noLog {
		if truth(res["failed"]) || truth(res["skipped"]) {
			ev.Msg = censored
		}
		return
	}
	r := ResultOf(res)
	ev.Msg, ev.RC = r.Msg, r.RC
	switch failed := truth(res["failed"]); {
	case !failed && r.Msg == modules.NonZeroRC:
		ev.Msg = "" // failed_when let it pass: nothing to say
	case failed && r.Msg == "" && truth(res["failed_when_result"]):
		ev.Msg = "failed_when matched"
	}
	ev.Stdout, ev.Stderr = clipOutput(r.Stdout), clipOutput(r.Stderr)
	showValue(ev, t, res)
	if e.po.Diff || e.diffOn(t) {
		ev.Diff, ev.DiffText = res["diff"], resultDiff(res)
	}
	var data map[string]any
	for k, v := range res {
		switch k {
		case "msg", "rc", "stdout", "stderr", "stdout_lines", "stderr_lines", "changed", "failed",
			"skipped", "content", "invocation", "cmd", "failed_when_result", "diff":
			continue
		}
		if data == nil {
			data = make(map[string]any, len(res))
		}
		data[k] = v
	}
	ev.Data = data
}

func (e *playExec) hostError(h *hostState, t *ctask, res map[string]any, cause error) *HostError {
	he := &HostError{Host: h.name, Task: t.name}
	if t.noLog {
		he.Result = map[string]any{"msg": censored}
		he.Err = errNoLog
		if cause != nil {
			he.Err = errors.Join(errNoLog, cause)
		}
		return he
	}
	res = failedItem(res)
	he.Result = map[string]any{"msg": res["msg"]}
	for _, k := range []string{"rc", "timedout"} {
		if v, ok := res[k]; ok {
			he.Result[k] = v
		}
	}
	if s := str(res["stdout"]); s != "" {
		he.Result["stdout"] = tail(s, 20)
	}
	if s := str(res["stderr"]); s != "" {
		he.Result["stderr"] = tail(s, 20)
	}
	msg := str(res["msg"])
	if v := res["msg"]; msg == "" && v != nil {
		msg = jinja.Display(v) // a fail or assert msg written as a list
	}
	if msg == "" {
		msg = "failed"
	}
	he.Err = errors.New(msg)
	if cause != nil {
		// errors.Is(err, context.Canceled) must hold for cmd to exit 130.
		he.Err = &causeError{msg: msg, cause: cause}
	}
	return he
}

// failedItem is a failed loop's first failed item, its msg naming the item, as the evidence of
// the host's failure: the loop's own msg ("One or more items failed") says neither which item
// nor why. Any other result is res.
func failedItem(res map[string]any) map[string]any {
	items, _ := res["results"].([]any)
	for _, x := range items {
		item, _ := x.(map[string]any)
		if truth(item["failed"]) {
			loopVar, _ := item["ansible_loop_var"].(string)
			label := jinja.Display(item[cmp.Or(loopVar, "item")])
			out := maps.Clone(item)
			out["msg"] = strings.TrimSpace(fmt.Sprintf("(item=%s) %s", label, jinja.Display(item["msg"])))
			return out
		}
	}
	return res
}

type causeError struct {
	msg   string
	cause error
}

func (c *causeError) Error() string { return c.msg }
func (c *causeError) Unwrap() error { return c.cause }

const maxOutput = 64 << 10

// clipOutput keeps the end of very long output: the end is where the error is.
func clipOutput(s string) string {
	if len(s) <= maxOutput {
		return s
	}
	return "…" + s[len(s)-maxOutput:]
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// showValue sets the event's message from a msg that is not text, or from the variable a
// debug var shows, as Ansible displays the value (jinja.Display).
func showValue(ev *Event, t *ctask, res map[string]any) {
	v, ok := res["msg"]
	if _, text := v.(string); text {
		return
	}
	if !ok && t.modName == "debug" { // {"changed": false, "failed": false, var: value}
		n := 0
		for k, x := range res {
			if k != "changed" && k != "failed" {
				v, n = x, n+1
			}
		}
		ok = n == 1
	}
	if ok {
		ev.Msg, ev.MsgJSON = jinja.Display(v), json.RawMessage(jinja.DisplayJSON(v, 0))
	}
}
