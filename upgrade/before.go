package upgrade

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
)

// hostError is an error of one host while a step is prepared (its connection, its probe, the read
// of its versions): its message is err's, and failBefore records it as that host's failure.
type hostError struct {
	host string
	err  error
}

func (e *hostError) Error() string { return e.err.Error() }
func (e *hostError) Unwrap() error { return e.err }

// onHost marks err (when not nil) as host's.
func onHost(host string, err error) error {
	if err == nil {
		return nil
	}
	return &hostError{host: host, err: err}
}

// hostErrors are the host errors err holds (a join of them, or one), in order.
func hostErrors(err error) []*hostError {
	var out []*hostError
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var he *hostError
		if errors.As(e, &he) {
			out = append(out, he)
		}
	}
	return out
}

// failBefore records err, which stopped step before it went in flight on its hosts, as each
// host's failure: an event with the error and a notification (through the StepError returned),
// and for the kubelet step the host upgrading-kubelet-failed (state.FailBefore, compare-and-set
// on the state, the host's status and no live lease). Where nothing can be recorded (an
// interrupt, an error of no host, a state in flight, another's live lease) err is returned as is.
func (w *Workflow) failBefore(ctx context.Context, step state.Step, err error) error {
	hes := hostErrors(err)
	if ctx.Err() != nil || len(hes) == 0 {
		return err
	}
	dctx, cancel := detached(ctx)
	defer cancel()
	var out []error
	for _, he := range hes {
		se, rerr := w.recordBefore(dctx, step, he)
		if rerr != nil {
			w.log().Warn("could not record the failure before the step as the host's", "host", he.host, "error", rerr)
		}
		if se == nil {
			return err
		}
		out = append(out, se)
	}
	return errors.Join(out...)
}

// recordBefore writes one host's failure before step started on it.
func (w *Workflow) recordBefore(ctx context.Context, step state.Step, he *hostError) (*StepError, error) {
	u, err := w.Store.Upgrade(ctx, w.Cluster)
	if err != nil || u.State.InFlight() || !step.Allows(u.State) {
		return nil, err // in flight: the operation's own failing path records it; not allowed: refused as before
	}
	from, err := w.hostStatus(ctx, he.host)
	if err != nil {
		return nil, err
	}
	to := from
	if step.Scope == state.ScopeKubeletBatch && from == state.HostIdle {
		to = state.UpgradingKubeletFailed
	}
	cause := fmt.Errorf("%w%s", he.err, sudoHint(he.err.Error()))
	ev, err := json.Marshal(recovery.Evidence{Step: step.Name, Host: he.host, Error: cause.Error()})
	if err != nil {
		return nil, err
	}
	c := state.FailBefore(w.Cluster, state.ActorRunner, u.State, he.host, from, to,
		state.Because(fmt.Sprintf("%s could not start on %s: %v", step.Name, he.host, cause)), state.AtHop(u.Hop), state.WithEvidence(ev))
	if _, err := w.Store.Apply(ctx, c); err != nil {
		return nil, err
	}
	w.stateChanged(he.host, u.State, u.State, fmt.Sprintf("%s could not start on %s: %s -> %s", step.Name, he.host, from, to))
	retry, _ := recovery.Next(recovery.NextIn{State: u.State, Host: he.host})
	return &StepError{Step: step.Name, Host: he.host, State: u.State, Cause: cause, Retry: retry, Recorded: true, Before: true}, nil
}

// hostStatus is host's status in the store.
func (w *Workflow) hostStatus(ctx context.Context, host string) (state.HostStatus, error) {
	hs, err := w.Store.Hosts(ctx, w.Cluster)
	if err != nil {
		return "", err
	}
	for _, h := range hs {
		if h.Hostname == host {
			return h.Status, nil
		}
	}
	return "", fmt.Errorf("host %s: %w", host, state.ErrNotFound)
}

// sudoHint is the advice for a sudo that asks for a password, when msg (an error, a task's
// stderr) says so: kupgrade runs `sudo -n`, which never prompts.
func sudoHint(msg string) string {
	if !strings.Contains(msg, "a password is required") && !strings.Contains(msg, "a terminal is required to read the password") {
		return ""
	}
	return "; sudo asks this host for a password, and kupgrade runs `sudo -n` (it never types one): give the SSH user passwordless sudo (NOPASSWD in /etc/sudoers.d), then retry"
}
