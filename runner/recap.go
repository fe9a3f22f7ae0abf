package runner

import (
	"github.com/kupgrade/kupgrade/modules"

	"errors"
	"fmt"
	"strings"
)

// HostRecap counts task results for one host, as Ansible's PLAY RECAP.
type HostRecap struct {
	OK          int `json:"ok"`
	Changed     int `json:"changed"`
	Failed      int `json:"failed"`
	Skipped     int `json:"skipped"`
	Unreachable int `json:"unreachable"`
	Rescued     int `json:"rescued"`
	Ignored     int `json:"ignored"`
}

// Recap is the outcome of a Play.
type Recap struct {
	Hosts map[string]*HostRecap
	// Registered holds, per host, every registered result (and set_fact values under their
	// names), so callers read results without templating.
	Registered map[string]map[string]any
	// Failures holds one error per host that failed or was unreachable, in host order.
	Failures []*HostError
}

// Err joins the per-host errors; nil when every host is ok. Unreachable hosts' errors keep their
// class, fault.ErrUnreachable.
func (rc *Recap) Err() error {
	if rc == nil || len(rc.Failures) == 0 {
		return nil
	}
	errs := make([]error, len(rc.Failures))
	for i, f := range rc.Failures {
		errs[i] = f
	}
	return errors.Join(errs...)
}

func newRecap() *Recap {
	return &Recap{Hosts: map[string]*HostRecap{}, Registered: map[string]map[string]any{}}
}

// HostError is why one host failed: the task, the evidence (rc, msg, the tail of stdout and
// stderr; hidden under no_log) and the cause. It wraps an *UnreachableError when the host could
// not be reached, and the context's error when the play was cancelled.
type HostError struct {
	Host   string
	Task   string
	Result map[string]any
	Err    error
}

func (e *HostError) Error() string {
	var b strings.Builder
	// The host is named once: an unreachable host's cause already names it.
	if e.Task != "" || e.Err == nil || !namesHost(e.Err.Error(), e.Host) {
		fmt.Fprintf(&b, "%s: ", e.Host)
	}
	if e.Task != "" {
		fmt.Fprintf(&b, "task %q: ", e.Task)
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	r := e.TaskResult()
	if r.NonZero() {
		fmt.Fprintf(&b, " (rc=%d)", *r.RC)
	}
	if r.Stderr != "" {
		b.WriteString(": ")
		b.WriteString(modules.LastLine(r.Stderr))
	}
	return b.String()
}

func (e *HostError) Unwrap() error { return e.Err }

// tail keeps the last n lines of s.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		j := strings.LastIndexByte(s[:i], '\n')
		if j < 0 {
			return s
		}
		i = j
	}
	if i == len(s) {
		return s
	}
	return s[i+1:]
}
