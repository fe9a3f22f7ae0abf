package runner

import (
	"github.com/kupgrade/kupgrade/modules"

	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/playbooks"
)

const censored = "the output has been hidden due to the fact that 'no_log: true' was specified for this result"

// runTask runs t on one host: its loop items (or the task once), then registers the result,
// notifies handlers and reports.
func (e *playExec) runTask(ctx context.Context, h *hostState, t *ctask) {
	start := time.Now()
	ev := Event{Time: start, Event: EventTaskStart, Host: h.name, Task: t.name}
	// The timeout, for the progress line (kubeadm may run 15 minutes); a bad one fails the task
	// in runOnce, where it is rendered again with the task's own vars.
	if d, err := e.duration(h, t.t.Timeout, 0); err == nil && d > 0 {
		ev.Data = map[string]any{"timeout": d.Seconds()}
	}
	e.r.report(ev)
	if res, cause := e.gate(ctx, "task"); cause != nil {
		e.finish(h, t, res, cause, start)
		return
	}
	mark := len(h.stack)
	// Block vars, then the task's own, pushed as written and rendered when read, as play vars
	// are: they may use each other and the loop's item. set_fact, include params and extra
	// vars outrank both.
	for _, vars := range t.vars {
		for k, v := range vars {
			if _, extra := e.po.ExtraVars[k]; !extra && !h.facts[k] && h.strong[k] == 0 {
				h.push(k, v)
			}
		}
	}
	if t.roleDir != "" {
		h.push("role_path", t.roleDir) // Ansible's, and where lookups find the role's files
	}
	t, bad := e.withKeywords(h, t)
	if bad != nil {
		h.pop(mark)
		e.finish(h, t, bad, nil, start)
		return
	}
	if t.perItemConn() {
		c := *t // itemHosts is this host's own
		t = &c
		defer func(own *trackedConn) { h.conn = own }(h.conn)
	} else if done := e.useConn(ctx, h, t, start); done != nil {
		defer done()
		if h.conn == nil {
			h.pop(mark)
			return
		}
	}
	defer e.tapLines(h, t)()
	var res map[string]any
	var cause error
	if t.t.Loop != nil {
		res, cause = e.runLoop(ctx, h, t)
	} else {
		res, cause = e.runOnce(ctx, h, t)
	}
	h.pop(mark)
	e.finish(h, t, res, cause, start)
}

// runOnce evaluates when, renders the arguments and calls the module, with timeout,
// until/retries, changed_when and failed_when. cause is the context's error when the run was
// interrupted.
func (e *playExec) runOnce(ctx context.Context, h *hostState, t *ctask) (map[string]any, error) {
	for _, c := range t.when {
		ok, err := jinja.Cond(c, h.vars)
		if err != nil {
			return tmplFailure(t, fmt.Sprintf("when %q", c), err), nil
		}
		if !ok {
			// ansible-core 2.14's result: no false_condition key (2.15 added it).
			return map[string]any{"changed": false, "skipped": true, "skip_reason": "Conditional result was False"}, nil
		}
	}
	if e.module(t) == nil {
		return failure(fmt.Sprintf("unknown module %q", t.modName)), nil
	}
	args := t.t.Args
	if t.dynArgs {
		a, err := render(args, h.vars)
		if err != nil {
			return tmplFailure(t, "arguments", err), nil
		}
		args = a.(map[string]any)
	}
	if t.t.ModuleSource == "" {
		var bad string
		if args, bad = playbooks.ConvertArgs(t.modName, args); bad != "" {
			return failure(bad), nil
		}
	}
	timeout, err := e.duration(h, t.t.Timeout, 0)
	if err != nil {
		return failure("timeout: " + err.Error()), nil
	}
	var rt retry
	if t.t.Async != "" {
		limit, bad := e.asyncLimit(h, t)
		if bad != nil {
			return bad, nil
		}
		if limit > 0 && (timeout == 0 || limit <= timeout) {
			timeout, rt.async = limit, limit
		}
	}
	if t.t.Until != "" {
		rt.retries = max(t.retries, 0) // retries: 0 runs once, as Ansible does
		if rt.delay, err = e.duration(h, t.t.Delay, 5*time.Second); err != nil {
			return failure("delay: " + err.Error()), nil
		}
	}
	m := e.modTask(h, t)
	if m.Env, err = renderEnv(t.env, h.vars); err != nil {
		return failure("environment: " + err.Error()), nil
	}
	if t.t.ModuleSource == "" {
		var bad map[string]any
		args, bad, err = modules.WithoutSELinux(ctx, m, args)
		if err != nil {
			return failure("SELinux check: " + err.Error()), nil
		}
		if bad != nil {
			return bad, nil
		}
	}
	res, cause := e.attempts(ctx, h, t, m, args, timeout, rt)
	settle(res)
	return res, cause
}

// settle adds the keys Ansible's executor gives a module's result that left them out: changed
// false and, unless a non-zero rc says otherwise, failed false (a playbook may read r.failed).
func settle(res map[string]any) {
	if res == nil || truth(res["unreachable"]) {
		return
	}
	if _, ok := res["changed"]; !ok {
		res["changed"] = false
	}
	if _, ok := res["failed"]; !ok && (res["rc"] == nil || fmt.Sprint(res["rc"]) == "0") {
		res["failed"] = false
	}
}

// call runs the module under the task's timeout and turns transport errors into results.
func (e *playExec) call(ctx context.Context, m *modules.Task, t *ctask, args map[string]any, timeout time.Duration) (map[string]any, error) {
	tctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res, err := e.module(t)(tctx, m, args)
	if err == nil {
		return res, nil
	}
	switch {
	case errors.Is(err, ErrFenced):
		// The cause makes the failure final: no failed_when, until or ignore_errors applies to
		// a command that did not run.
		res = failure(err.Error())
		res["rc"] = fenceExit
		return res, err
	case ctx.Err() != nil:
		return failure("interrupted: " + ctx.Err().Error()), ctx.Err()
	case tctx.Err() != nil:
		return timedOut(timeout), nil
	case connLost(m.Conn):
		return map[string]any{"unreachable": true, "changed": false, "msg": err.Error()}, nil
	}
	return failure(err.Error()), nil
}

// judge applies changed_when and failed_when, which see the result under the register name and
// its keys (rc, stdout, ...) as plain variables.
func (e *playExec) judge(h *hostState, t *ctask, res map[string]any) error {
	if len(t.t.ChangedWhen) > 0 {
		v, err := e.all(h, t, res, t.t.ChangedWhen)
		if err != nil {
			return fmt.Errorf("changed_when: %w", err)
		}
		res["changed"] = v
	}
	if len(t.t.FailedWhen) > 0 {
		v, err := e.all(h, t, res, t.t.FailedWhen)
		if err != nil {
			return fmt.Errorf("failed_when: %w", err)
		}
		res["failed"], res["failed_when_result"] = v, v // msg stays what the module said, as in Ansible
	}
	return nil
}

func (e *playExec) all(h *hostState, t *ctask, res map[string]any, conds []string) (bool, error) {
	for _, c := range conds {
		ok, err := e.cond(h, t, res, c)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func (e *playExec) cond(h *hostState, t *ctask, res map[string]any, c string) (bool, error) {
	mark := len(h.stack)
	for k, v := range res {
		h.push(k, v)
	}
	if t.t.Register != "" {
		h.push(t.t.Register, res)
	}
	defer h.pop(mark)
	return jinja.Cond(c, h.vars)
}

// duration reads a templated "30", "1.5" (seconds) or Go duration ("2m").
func (e *playExec) duration(h *hostState, s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	if strings.Contains(s, "{{") {
		r, err := jinja.RenderString(s, h.vars)
		if err != nil {
			return 0, err
		}
		s = r
	}
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is neither seconds nor a duration", s)
	}
	return d, nil
}

func failure(msg string) map[string]any { return modules.Failure(msg) }

func truth(v any) bool {
	b, _ := v.(bool)
	return b
}

func toList(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case []string:
		return toAnySlice(x), true
	case []int:
		out := make([]any, len(x))
		for i, n := range x {
			out[i] = n
		}
		return out, true
	case []map[string]any:
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = m
		}
		return out, true
	case nil:
		return nil, true
	}
	return nil, false
}

var errNoLog = errors.New(censored)
