package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// runUpgrade is `upgrade run` for people: the run, then a summary of it (as kubeadm's
// "SUCCESS!" and k0sctl's "Finished in"), saying so when there was nothing to do and when
// --until stopped it. -o json prints no summary: its events say it all.
func (a *app) runUpgrade(ctx context.Context, w *upgrade.Workflow, o upgrade.RunOptions) error {
	before, _ := w.Store.Upgrade(ctx, w.Cluster)
	start := time.Now()
	err := a.outcome(a.notifyFailure(ctx, w, w.Run(ctx, o)))
	after, rerr := w.Store.Upgrade(ctx, w.Cluster)
	if rerr != nil {
		return err // no upgrade, or an unreadable store: the error says why
	}
	a.notifyCompleted(ctx, w, before.State, after)
	if a.json() {
		return err
	}
	hosts, _ := w.Store.Hosts(ctx, w.Cluster)
	a.summarize(ctx, w, runEnd{before: before.State, after: after, until: o.Until, failed: err != nil,
		took: time.Since(start), hosts: hosts})
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
	fmt.Fprintf(a.stdout, "total time: %s\n", e.took.Round(time.Millisecond))
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
