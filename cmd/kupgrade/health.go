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
	SkipCheck   []string `name:"skip-check" placeholder:"NAME" help:"Go on without the health check NAME (repeatable; recorded as an event): nodes-ready, control-plane, kubelet-skew, etcd, certificates, removed-apis, drain, packages."`
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

// checkHealth runs the health checks for an upgrade from to to, writes their lines to out (all
// of them, or only those that do not pass) and refuses when one fails.
func (a *app) checkHealth(ctx context.Context, w *upgrade.Workflow, f healthFlags, from, to string, out io.Writer, all bool) error {
	o, err := f.options(from, to)
	if err != nil {
		return err
	}
	rs, err := w.Health(ctx, o)
	if err != nil {
		return err
	}
	writeHealth(out, rs, all)
	return upgrade.HealthGate(rs)
}

// writeHealth writes one line per check (or per check that does not pass); checks that share
// their message (none could run, for the same reason) share one line.
func writeHealth(out io.Writer, rs []health.Result, all bool) {
	var order []string
	byMsg := map[string][]health.Result{}
	for _, r := range rs {
		if r.Status == health.Pass && !all {
			continue
		}
		key := string(r.Status) + "\x00" + r.Message + "\x00" + strings.Join(r.Objects, "\x00")
		if _, ok := byMsg[key]; !ok {
			order = append(order, key)
		}
		byMsg[key] = append(byMsg[key], r)
	}
	for _, key := range order {
		group := byMsg[key]
		r := group[0]
		if len(group) > 1 {
			names := make([]string, len(group))
			for i, g := range group {
				names[i] = g.Check
			}
			r.Check = strings.Join(names, ", ")
		}
		fmt.Fprintf(out, "health: %s\n", r)
	}
}
