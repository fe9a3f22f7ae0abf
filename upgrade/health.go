package upgrade

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// Health runs the checks before the window (package health) over the hosts' pooled SSH
// connections, as root: the cluster's and etcd's on the first controller, the certificates on
// every controller, the packages (installed, and offered at each hop) on every host.
func (w *Workflow) Health(ctx context.Context, o health.Options) ([]health.Result, error) {
	cs, err := w.controllerHosts()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(cs))
	for i, h := range cs {
		names[i] = h.Name
	}
	if o.Packages, err = w.packageHosts(); err != nil {
		return nil, err
	}
	o.Hops = w.hopsTo(ctx, o.To)
	exec := func(ctx context.Context, host, script string) (string, error) {
		h, ok := w.Inventory.Host(host)
		if !ok {
			return "", fmt.Errorf("%s: not in the inventory", host)
		}
		return w.execScript(ctx, h, "Health check "+health.Serves(script)+" before "+o.To.String(), script)
	}
	return health.Run(ctx, exec, names, o)
}

// execScript runs script as root on h over its pooled connection and returns its output; a
// non-zero exit status is an error carrying stderr. It is reported as a task named task (its
// start, then its end with how long it took), so that the live view, -o json and the run log
// show the checks and questions kupgrade asks between playbooks, and where the run's time went.
func (w *Workflow) execScript(ctx context.Context, h *inventory.Host, task, script string) (string, error) {
	c, err := w.Runner.Conn(ctx, h)
	if err != nil {
		return "", err
	}
	began := time.Now()
	w.report(runner.Event{Time: began, Event: runner.EventTaskStart, Host: h.Name, Task: task})
	rc, out, stderr, err := runner.ExecOn(c, true)(ctx, script, nil)
	ev := runner.Event{Time: time.Now(), Event: runner.EventTaskOK, Host: h.Name, Task: task}
	ev.Duration = ev.Time.Sub(began)
	switch {
	case err != nil:
		ev.Event, ev.Msg = runner.EventHostUnreachable, err.Error()
	case rc != 0:
		ev.Event, ev.RC, ev.Msg, ev.Stderr = runner.EventTaskFailed, &rc, fmt.Sprintf("exit status %d", rc), stderr
	}
	w.report(ev)
	if err != nil {
		return "", err
	}
	if rc != 0 {
		return "", fmt.Errorf("exit status %d: %s", rc, strings.TrimSpace(stderr))
	}
	return out, nil
}

// HealthGate is Health's verdict for a command about to change the cluster: a refusal
// (state.ErrRefused) naming every failed check and how to override one.
func HealthGate(rs []health.Result) error {
	failed := health.Failed(rs)
	if len(failed) == 0 {
		return nil
	}
	names := make([]string, len(failed))
	for i, r := range failed {
		names[i] = r.Check
	}
	err := fmt.Errorf("%w: health checks failed: %s (fix what they name, or --skip-check %s to go on without it)",
		state.ErrRefused, strings.Join(names, ", "), names[0])
	if slices.Contains(names, health.CheckPackages) {
		err = fmt.Errorf("%w; hosts whose kubeadm and kubelet the platform places itself (StarlingX), not a package repository, say so with `kupgrade_install_packages: false` in the inventory", err)
	}
	return err
}

// resumeHealth runs opts.Health's checks (when set) before Resume starts an upgrade to opts.To,
// logging each line that does not pass; a failed check refuses the start.
func (w *Workflow) resumeHealth(ctx context.Context, opts ResumeOptions) error {
	if opts.Health == nil {
		return nil
	}
	o := *opts.Health
	var err error
	if o.To, err = state.ParseVersion(opts.To); err != nil {
		return err
	}
	rs, err := w.Health(ctx, o)
	if err != nil {
		return err
	}
	w.logHealth(rs)
	return HealthGate(rs)
}

// logHealth logs each line of rs that does not pass.
func (w *Workflow) logHealth(rs []health.Result) {
	for _, r := range rs {
		if r.Status != health.Pass {
			w.log().Warn("health check", "check", r.Check, "status", string(r.Status), "message", r.Message, "objects", r.Objects)
		}
	}
}

func (w *Workflow) recordSkips(ctx context.Context, o *health.Options) error {
	if o == nil {
		return nil
	}
	return w.RecordSkippedChecks(ctx, o.Skip)
}
