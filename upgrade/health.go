package upgrade

import (
	"context"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// Health runs the checks before the window (package health) on the inventory's controllers
// over their pooled SSH connections, as root: the cluster's and etcd's on the first controller,
// the certificates on every one.
func (w *Workflow) Health(ctx context.Context, o health.Options) ([]health.Result, error) {
	cs, err := w.controllerHosts()
	if err != nil {
		return nil, err
	}
	byName := map[string]*inventory.Host{}
	names := make([]string, len(cs))
	for i, h := range cs {
		byName[h.Name], names[i] = h, h.Name
	}
	exec := func(ctx context.Context, host, script string) (string, error) {
		c, err := w.Runner.Conn(ctx, byName[host])
		if err != nil {
			return "", err
		}
		rc, out, stderr, err := runner.ExecOn(c, true)(ctx, script, nil)
		if err != nil {
			return "", err
		}
		if rc != 0 {
			return "", fmt.Errorf("exit status %d: %s", rc, strings.TrimSpace(stderr))
		}
		return out, nil
	}
	return health.Run(ctx, exec, names, o)
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
	return fmt.Errorf("%w: health checks failed: %s (fix what they name, or --skip-check %s to go on without it)",
		state.ErrRefused, strings.Join(names, ", "), names[0])
}

// RecordSkippedChecks records, on the cluster's upgrade, the health checks the operator
// overrode by name.
func (w *Workflow) RecordSkippedChecks(ctx context.Context, skip []string) error {
	if len(skip) == 0 {
		return nil
	}
	return w.Store.AddEvent(ctx, state.Event{Cluster: w.Cluster, Hostname: state.WholeCluster, Actor: state.ActorCLI,
		Reason: "health checks skipped by --skip-check: " + strings.Join(skip, ", ")})
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
	for _, r := range rs {
		if r.Status != health.Pass {
			w.log().Warn("health check", "check", r.Check, "status", string(r.Status), "message", r.Message, "objects", r.Objects)
		}
	}
	return HealthGate(rs)
}

func (w *Workflow) recordSkips(ctx context.Context, o *health.Options) error {
	if o == nil {
		return nil
	}
	return w.RecordSkippedChecks(ctx, o.Skip)
}
