package runner

import (
	"github.com/kupgrade/kupgrade/modules"

	"context"
	"fmt"
	"time"
)

// retry is a task's until/retries/delay, read once per run of the task.
type retry struct {
	retries int
	delay   time.Duration
	// async is the task's async limit when it is the one its call runs under (not a shorter
	// timeout): each attempt's result then has Ansible's async keys.
	async time.Duration
}

// attempts calls the module until the task's until holds or the retries run out. The gate is
// asked before every attempt after the first (runTask asked before the first): once the lease
// is lost, no further attempt starts.
func (e *playExec) attempts(ctx context.Context, h *hostState, t *ctask, m *modules.Task, args map[string]any, timeout time.Duration, rt retry) (map[string]any, error) {
	for attempt := 1; ; attempt++ {
		res, cause := e.call(ctx, m, t, args, timeout)
		if cause != nil || h.conn.lost != nil {
			return res, cause
		}
		if rt.async > 0 {
			res = asyncResult(res, truth(res["timedout"]) && res["rc"] == timedOutRC)
		}
		if err := e.judge(h, t, res); err != nil {
			return tmplFailure(t, "", err), nil
		}
		if t.t.Until == "" {
			return res, nil
		}
		res["attempts"] = attempt
		done, err := e.cond(h, t, res, t.t.Until)
		if err != nil {
			return tmplFailure(t, fmt.Sprintf("until %q", t.t.Until), err), nil
		}
		if done {
			return res, nil // as judged: a command that failed still failed (Ansible's too)
		}
		if attempt > rt.retries {
			return exhausted(t, res, rt.retries, attempt), nil
		}
		if r, cause := e.nextAttempt(ctx, rt.delay, attempt+1); cause != nil {
			r["attempts"] = attempt
			return r, cause
		}
	}
}

// nextAttempt waits the delay, then asks the gate for attempt n.
func (e *playExec) nextAttempt(ctx context.Context, delay time.Duration, n int) (map[string]any, error) {
	select {
	case <-time.After(delay):
	case <-ctx.Done():
		return failure("interrupted: " + ctx.Err().Error()), ctx.Err()
	}
	return e.gate(ctx, fmt.Sprintf("attempt %d", n))
}

// exhausted is the result of a task whose until never held. Ansible reports one attempt fewer
// than it made once retries run out (retries, not retries+1): registered results and playbooks
// that read them count on that.
func exhausted(t *ctask, res map[string]any, retries, made int) map[string]any {
	res["attempts"] = retries
	res["failed"] = true
	if res["msg"] == nil || res["msg"] == "" {
		res["msg"] = fmt.Sprintf("retries exhausted: %q still false after %d attempts", t.t.Until, made)
	}
	return res
}
