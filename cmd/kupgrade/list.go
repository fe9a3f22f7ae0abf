package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
)

type upgradeListCmd struct{}

// upgradeListView is one element of `upgrade list -o json`.
type upgradeListView struct {
	Cluster        string     `json:"cluster"`
	UUID           string     `json:"uuid"`
	FromVersion    string     `json:"from_version"`
	ToVersion      string     `json:"to_version"`
	State          string     `json:"state"`
	StateEnteredAt string     `json:"state_entered_at"`
	AgeSeconds     int64      `json:"age_seconds"` // in this state, on the database's clock
	Lease          *leaseView `json:"lease"`
	LeaseLive      bool       `json:"lease_live"`
	// Flag is "stuck" (in flight, or a host in flight, with no live lease), "failed" (a *-failed
	// state, or a host in a failed status: a kubelet, a drain or an uncordon that failed while
	// the cluster stays upgrading-kubelets), "in-flight" (running under a live lease) or ""
	// (nothing needs anyone).
	Flag string `json:"flag"`
	// FailedHosts are the hosts in a failed status (upgrading-kubelet-failed,
	// draining-node-failed, uncordoning-node-failed), each as "host (status)".
	FailedHosts []string `json:"failed_hosts,omitempty"`
}

func (c *upgradeListCmd) Run(ctx context.Context, a *app) error {
	st, err := a.Reader(ctx)
	if err != nil {
		return err
	}
	us, err := st.Upgrades(ctx)
	if err != nil {
		return err
	}
	now := st.Now()
	out := make([]upgradeListView, 0, len(us))
	for _, u := range us {
		l, err := st.Lease(ctx, u.Cluster)
		if err != nil {
			return err
		}
		hosts, err := st.Hosts(ctx, u.Cluster)
		if err != nil {
			return err
		}
		out = append(out, newListView(u, l, hosts, now))
	}
	if a.json() {
		return writeJSON(a.stdout, out)
	}
	if len(out) == 0 {
		fmt.Fprintln(a.stdout, "no upgrade in this database")
		return nil
	}
	writeList(a.stdout, out)
	return nil
}

func newListView(u state.Upgrade, l *state.Lease, hosts []state.Host, now time.Time) upgradeListView {
	v := upgradeListView{Cluster: u.Cluster, UUID: u.UUID, FromVersion: u.FromVersion, ToVersion: u.ToVersion,
		State: string(u.State), StateEnteredAt: rfc3339(u.StateEnteredAt), LeaseLive: l.Live(now)}
	if !u.StateEnteredAt.IsZero() {
		v.AgeSeconds = int64(now.Sub(u.StateEnteredAt).Seconds())
	}
	if l != nil {
		v.Lease = &leaseView{Owner: l.Owner, Operation: l.Operation, HeartbeatAt: rfc3339(l.HeartbeatAt), ExpiresAt: rfc3339(l.ExpiresAt)}
	}
	inFlight := u.State.InFlight()
	for _, h := range hosts {
		inFlight = inFlight || h.Status.InFlight()
		if h.Status.Failed() {
			v.FailedHosts = append(v.FailedHosts, h.Hostname+" ("+string(h.Status)+")")
		}
	}
	switch failed := u.State.Failed() || len(v.FailedHosts) > 0; {
	case inFlight && !v.LeaseLive:
		v.Flag = "stuck"
	case inFlight:
		v.Flag = "in-flight"
	case failed:
		v.Flag = "failed"
	}
	return v
}

func writeList(w io.Writer, vs []upgradeListView) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tFROM\tTO\tSTATE\tAGE\tLEASE\tFLAG")
	for _, v := range vs {
		lease := "-"
		if v.Lease != nil {
			lease = v.Lease.Owner + " (" + v.Lease.Operation + ")"
			if !v.LeaseLive {
				lease += " EXPIRED"
			}
		}
		flag := v.Flag
		if flag == "stuck" || flag == "failed" {
			flag = strings.ToUpper(flag) // what needs someone stands out
		}
		if len(v.FailedHosts) > 0 && flag == "FAILED" {
			flag += ": " + strings.Join(v.FailedHosts, ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.Cluster, v.FromVersion, v.ToVersion, v.State,
			recovery.AgeText(time.Duration(v.AgeSeconds)*time.Second), lease, dash(flag))
	}
	tw.Flush()
}
