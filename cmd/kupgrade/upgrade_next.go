package main

import (
	"context"
	"fmt"
	"io"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
	"github.com/kupgrade/kupgrade/watch"
)

// failureView is the last failure of an upgrade that still needs a person (a failed state, or a
// kubelet's failure in upgrading-kubelets), as `upgrade show` prints it.
type failureView struct {
	At      string       `json:"at"`
	Host    string       `json:"host"`
	Reason  string       `json:"reason"`
	Finding *findingView `json:"finding"` // the probe's classified finding, null when none was recorded
}

// findingView is a finding in its parts: class (empty when the host could not be probed),
// summary and advice (the error event's finding.next).
type findingView struct {
	Class   string `json:"class"`
	Summary string `json:"summary"`
	Advice  string `json:"advice"`
}

// text is the finding in one line for people: "CLASS: SUMMARY ADVICE".
func (f *findingView) text() string {
	return watch.FindingParts{Class: f.Class, Summary: f.Summary, Advice: f.Advice}.Text()
}

// addNext fills in v's next command (or why there is none to type now), its hosts left failed
// and its last failure: the same answers the status page and `upgrade plan` give, through
// recovery.Next, from the current upgrade's hosts and events only (watch.CurrentFailure).
func (a *app) addNext(ctx context.Context, st store, v *upgradeView, u state.Upgrade) error {
	inv, err := a.Inventory()
	if err != nil {
		inv = nil // the optional steps are then unknown: the next mandatory one is still right
	}
	next, wait, err := (&upgrade.Workflow{Store: st, Inventory: inv, Cluster: v.Cluster}).Next(ctx)
	if err != nil {
		return err
	}
	v.Next, v.Wait = nullable(a.clusterCommand(ctx, st, next)), nullable(wait)
	hosts, err := st.Hosts(ctx, v.Cluster)
	if err != nil {
		return err
	}
	for _, h := range watch.FailedHosts(hosts) {
		v.FailedHosts = append(v.FailedHosts, h.Hostname+" ("+string(h.Status)+")")
	}
	evs, err := st.Events(ctx, v.Cluster, 50)
	if err != nil {
		return err
	}
	f, ok := watch.CurrentFailure(u, hosts, evs)
	if !ok {
		return nil
	}
	v.LastFailure = &failureView{At: rfc3339(f.At), Host: f.Host, Reason: a.redact(f.Reason)}
	if f.Parts.Summary != "" {
		v.LastFailure.Finding = &findingView{Class: f.Parts.Class, Summary: a.commands(f.Parts.Summary), Advice: a.commands(f.Parts.Advice)}
	}
	if v.Wait == nil && v.Next != nil && !recovery.IsRecover(next) { // retry where it failed, as the status page
		cmd, _ := recovery.Next(recovery.NextIn{State: u.State, Host: f.Host})
		v.Next = nullable(a.clusterCommand(ctx, st, cmd))
	}
	return nil
}

// writeFailureNext prints the last failure, its finding and the `next:` line of upgrade show.
func writeFailureNext(w io.Writer, v upgradeView) {
	if f := v.LastFailure; f != nil {
		where := ""
		if f.Host != state.WholeCluster {
			where = " on " + f.Host
		}
		fmt.Fprintf(w, "last failure%s at %s: %s\n", where, f.At, f.Reason)
		if f.Finding != nil {
			fmt.Fprintf(w, "  found on the host: %s\n", f.Finding.text())
		}
	}
	switch {
	case v.Wait != nil:
		fmt.Fprintf(w, "next: nothing to type now: %s\n", *v.Wait)
	case v.Next != nil:
		fmt.Fprintf(w, "next: %s\n", *v.Next)
	default:
		fmt.Fprintln(w, "next: nothing: the upgrade has ended")
	}
}
