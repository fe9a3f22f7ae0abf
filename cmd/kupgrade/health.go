package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// healthFlags are the flags of the health checks before the window, shared by upgrade plan,
// upgrade start and fleet run.
type healthFlags struct {
	SkipCheck   []string `name:"skip-check" placeholder:"NAME" help:"Go on without the health check NAME (repeatable, or NAME,NAME; recorded as an event, it holds for every later hop of the upgrade): nodes-ready, control-plane, kubelet-skew, etcd, certificates, removed-apis, drain, packages."`
	CertMinDays int      `name:"cert-min-days" default:"30" help:"The certificates health check fails for a kubeadm-managed certificate with fewer days left."`
}

// options are the health checks' options for an upgrade from (may be "": the control plane's
// lowest version) to to.
func (f healthFlags) options(from, to string) (health.Options, error) {
	o, err := f.base()
	if err != nil {
		return o, err
	}
	if o.To, err = state.ParseVersion(to); err != nil {
		return o, err
	}
	if from != "" {
		o.From, err = state.ParseVersion(from)
	}
	return o, err
}

// base are the health checks' options the flags say, without versions (`upgrade run` sets
// each hop's).
func (f healthFlags) base() (health.Options, error) {
	if err := health.CheckSkips(f.SkipCheck); err != nil {
		return health.Options{}, err
	}
	if f.CertMinDays < 1 {
		return health.Options{}, fmt.Errorf("%w: --cert-min-days %d: want a number of days, 1 or more", state.ErrBadInput, f.CertMinDays)
	}
	return health.Options{CertMinDays: f.CertMinDays, Skip: f.SkipCheck}, nil
}

// checkHealth runs the health checks for an upgrade from to to, writes their verdict and lines
// to out (all of them, or only those that do not pass) and refuses when one fails.
func (a *app) checkHealth(ctx context.Context, w *upgrade.Workflow, f healthFlags, from, to string, out io.Writer, all bool) error {
	rs, err := a.runHealth(ctx, w, f, from, to)
	if err != nil {
		return err
	}
	writeHealth(out, to, rs, all)
	return upgrade.HealthGate(rs)
}

// runHealth runs the health checks for an upgrade from to to.
func (a *app) runHealth(ctx context.Context, w *upgrade.Workflow, f healthFlags, from, to string) ([]health.Result, error) {
	o, err := f.options(from, to)
	if err != nil {
		return nil, err
	}
	return w.Health(ctx, o)
}

// writeHealth writes the verdict first, then one line per check (or per check that does not
// pass), verdict first, then what it names (a host, a file, a pod), one line each, indented.
func writeHealth(out io.Writer, to string, rs []health.Result, all bool) {
	fmt.Fprintf(out, "health checks before %s: %s\n", to, healthVerdict(rs))
	for _, r := range rs {
		if r.Status == health.Pass && !all {
			continue
		}
		fmt.Fprintf(out, "health: %-5s %s: %s\n", r.Status, r.Check, r.Message)
		for _, o := range r.Objects {
			fmt.Fprintf(out, "    %s\n", o)
		}
	}
}

// healthVerdict is the checks' verdict in a few words: "REFUSED: drain, packages fail (2 of
// 8)", or "go: 7 pass, 1 warn".
func healthVerdict(rs []health.Result) string {
	count := map[health.Status]int{}
	var failed []string
	for _, r := range rs {
		count[r.Status]++
		if r.Status == health.Fail {
			failed = append(failed, r.Check)
		}
	}
	if len(failed) > 0 {
		return fmt.Sprintf("REFUSED: %s fail (%d of %d)", strings.Join(failed, ", "), len(failed), len(rs))
	}
	var parts []string
	for _, st := range []health.Status{health.Pass, health.Warn, health.Skipped} {
		if count[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[st], st))
		}
	}
	return "go: " + strings.Join(parts, ", ")
}
