package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// runUpgrade is `upgrade run` for people: the run, then a summary of it (as kubeadm's
// "SUCCESS!" and k0sctl's "Finished in"), saying so when there was nothing to do and when
// --until stopped it. -o json prints no summary: its events say it all.
func (a *app) runUpgrade(ctx context.Context, w *upgrade.Workflow, o upgrade.RunOptions) error {
	return a.summarized(ctx, w, o.Until, func() error { return w.Run(ctx, o) })
}

// summarized runs a command that changes the upgrade (upgrade run, a single step, abort), then
// prints its summary: what happened, the hosts' versions, the time of this invocation and of the
// upgrade, and what to type next (the retry, after a failure).
func (a *app) summarized(ctx context.Context, w *upgrade.Workflow, until state.State, run func() error) error {
	before, _ := w.Store.Upgrade(ctx, w.Cluster)
	start := time.Now()
	err := a.outcome(a.notifyFailure(ctx, w, run()))
	after, rerr := w.Store.Upgrade(ctx, w.Cluster)
	if rerr != nil {
		return err // no upgrade, or an unreadable store: the error says why
	}
	a.notifyCompleted(ctx, w, before.State, after)
	if a.json() {
		return err
	}
	hosts, _ := w.Store.Hosts(ctx, w.Cluster)
	a.summarize(ctx, w, runEnd{before: before.State, after: after, until: until, failed: err != nil,
		took: time.Since(start), hosts: hosts, now: w.Store.Now()})
	return err
}

// runEnd is how a run ended, for its summary.
type runEnd struct {
	before state.State
	after  state.Upgrade
	until  state.State
	failed bool
	took   time.Duration
	hosts  []state.Host
	now    time.Time // the store's clock, for the upgrade's own time
}

// summarize prints the last lines of a run: what happened, the hosts' versions, the total time
// and what to type next.
func (a *app) summarize(ctx context.Context, w *upgrade.Workflow, e runEnd) {
	u := e.after
	next, wait, _ := w.Next(ctx)
	head, stopped := "", e.until != "" && u.State == e.until && !e.failed
	switch {
	case e.failed:
		head = fmt.Sprintf("run FAILED: cluster %s is in state %s", u.Cluster, u.State)
	case stopped:
		head = fmt.Sprintf("upgrade of cluster %s: %s -> %s", u.Cluster, u.FromVersion, u.ToVersion)
	case e.before == u.State:
		head = fmt.Sprintf("nothing to do: the upgrade of cluster %s to %s is %s", u.Cluster, u.ToVersion, u.State)
	default:
		head = fmt.Sprintf("upgrade of cluster %s: %s -> %s, now %s", u.Cluster, u.FromVersion, u.ToVersion, u.State)
	}
	fmt.Fprintf(a.stdout, "\n%s\n", head)
	writeHostVersions(a.stdout, e.hosts)
	fmt.Fprintf(a.stdout, "total time: %s this run; %s\n", e.took.Round(time.Millisecond), upgradeTime(u, e.now))
	last := "next: nothing: the upgrade has ended"
	switch {
	case wait != "":
		last = "next: nothing to type now: " + wait
	case next != "":
		last = "next: " + a.command(next)
	}
	if stopped {
		last = fmt.Sprintf("stopped at %s as asked; %s", u.State, last)
	}
	fmt.Fprintln(a.stdout, last)
}

// writeHostVersions is one line per host: its versions as recorded now.
func writeHostVersions(out io.Writer, hosts []state.Host) {
	var b strings.Builder
	for _, h := range hosts {
		fmt.Fprintf(&b, "  %-20s %-10s control plane %s, kubelet %s\n", h.Hostname, h.Personality,
			dash(h.ControlPlaneVersion), dash(h.KubeletVersion))
	}
	if b.Len() > 0 {
		fmt.Fprintf(out, "hosts:\n%s", b.String())
	}
}

// upgradeTime is the upgrade's own time, across every invocation: "the upgrade: 3h20m since its
// start at 2026-12-07T21:00:00Z", or, once complete, how long it took.
func upgradeTime(u state.Upgrade, now time.Time) string {
	if u.CreatedAt.IsZero() {
		return "the upgrade's start is not recorded"
	}
	if u.State == state.UpgradeComplete && !u.StateEnteredAt.IsZero() {
		return "the upgrade took " + recovery.AgeText(u.StateEnteredAt.Sub(u.CreatedAt)) + " from its start at " + rfc3339(u.CreatedAt)
	}
	return "the upgrade: " + recovery.AgeText(now.Sub(u.CreatedAt)) + " since its start at " + rfc3339(u.CreatedAt)
}
