package runner

import (
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

// asyncLimit reads a task's async and poll on the host running it. A task with async runs to
// its end as with Ansible's poll above 0, and fails past async seconds with Ansible's message
// (the remote command is then cancelled, as any timeout cancels it). poll: 0 is refused when
// the playbook loads; a template that renders to 0 fails the task here.
func (e *playExec) asyncLimit(h *hostState, t *ctask) (time.Duration, map[string]any) {
	limit, err := e.duration(h, t.t.Async, 0)
	if err != nil {
		return 0, failure("async: " + err.Error())
	}
	if limit <= 0 || t.t.Poll == "" {
		return limit, nil
	}
	if poll, err := e.duration(h, t.t.Poll, 0); err != nil || poll <= 0 {
		return 0, failure(fmt.Sprintf("poll %q: kupgrade runs async tasks with a poll above 0 only (it cannot leave a task running to be collected by async_status)", t.t.Poll))
	}
	return limit, nil
}

// asyncResult gives a result the keys an async task registers in Ansible: its job's id,
// finished and started. Past the limit it is what Ansible's async wrapper reports when it kills
// the job at its limit ("Timeout exceeded"), as kupgrade cancels the command then. (Ansible's
// poll may see the limit first and say "async task did not complete within the requested
// time", leaving the job running: which one a user sees there depends on timing.)
func asyncResult(res map[string]any, expired bool) map[string]any {
	jid := fmt.Sprintf("j%d.%d", rand.Int64N(1e12), os.Getpid())
	if expired {
		res = map[string]any{"failed": true, "changed": false, "msg": "Timeout exceeded",
			"stdout": "", "stderr": "", "stdout_lines": []any{}, "stderr_lines": []any{}}
	}
	res["ansible_job_id"], res["finished"], res["started"] = jid, 1, 1
	return res
}
