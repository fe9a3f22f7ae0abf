package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

type upgradeHistoryCmd struct {
	Since string `help:"Only events since then: a duration back from now (2h, 30m) or an RFC 3339 time."`
	Limit int    `help:"At most this many events, the newest ones." default:"200"`
	All   bool   `name:"all-clusters" help:"Events of every cluster, not only --cluster's."`
	Wide  bool   `help:"Print each reason whole instead of cutting it to fit the terminal."`
}

// historyView is one element of `upgrade history -o json`, oldest first.
type historyView struct {
	Time           string          `json:"time"`
	Cluster        string          `json:"cluster"`
	UpgradeUUID    string          `json:"upgrade_uuid"`
	Actor          state.Actor     `json:"actor"`
	FromState      string          `json:"from_state"`
	ToState        string          `json:"to_state"`
	Host           *string         `json:"host"`
	FromHostStatus *string         `json:"from_host_status"`
	ToHostStatus   *string         `json:"to_host_status"`
	Reason         string          `json:"reason"`
	Evidence       json.RawMessage `json:"evidence,omitempty"`
	Hop            string          `json:"hop,omitempty"` // "hop 2 of 3 (v1.31.14)" in an upgrade with hops
}

func (c *upgradeHistoryCmd) Run(ctx context.Context, a *app) error {
	if c.Limit < 1 {
		return fmt.Errorf("--limit %d: want 1 or more: %w", c.Limit, state.ErrBadInput)
	}
	st, err := a.Reader(ctx)
	if err != nil {
		return err
	}
	since, err := parseSince(c.Since, st.Now())
	if err != nil {
		return err
	}
	cluster := state.AllClusters
	if !c.All {
		cluster = a.cluster()
	}
	// Events are newest first: the newest Limit events since `since` are a prefix of them.
	evs, err := st.Events(ctx, cluster, c.Limit)
	if err != nil {
		return err
	}
	out := []historyView{}
	for _, e := range evs {
		if e.CreatedAt.Before(since) {
			break
		}
		out = append(out, newHistoryView(e))
	}
	slices.Reverse(out) // read as it happened
	if a.json() {
		return writeJSON(a.stdout, out)
	}
	if len(out) == 0 {
		fmt.Fprintf(a.stdout, "no event for %s%s\n", clusterLabel(cluster), a.otherClusters())
		return nil
	}
	writeHistory(a.stdout, out, c.All, cellWidth(c.Wide, 90))
	return nil
}

func clusterLabel(cluster string) string {
	if cluster == state.AllClusters {
		return "any cluster"
	}
	return fmt.Sprintf("cluster %q", cluster)
}

// parseSince reads --since: "" is the beginning of time, a duration counts back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a duration back from now (2h, 30m) or an RFC 3339 time (2025-06-01T12:00:00Z): %w", s, state.ErrBadInput)
}

func newHistoryView(e state.Event) historyView {
	return historyView{Time: rfc3339(e.CreatedAt), Cluster: e.Cluster, UpgradeUUID: e.UpgradeUUID, Actor: e.Actor,
		FromState: string(e.FromState), ToState: string(e.ToState), Host: nullable(e.Hostname),
		FromHostStatus: nullable(string(e.FromHostStatus)), ToHostStatus: nullable(string(e.ToHostStatus)),
		Reason: e.Reason, Evidence: e.Evidence, Hop: e.Hop}
}

func writeHistory(w io.Writer, vs []historyView, withCluster bool, width int) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "TIME\tACTOR\tFROM -> TO\tHOST\tREASON"
	if withCluster {
		head = "TIME\tCLUSTER\tACTOR\tFROM -> TO\tHOST\tREASON"
	}
	fmt.Fprintln(tw, head)
	for _, v := range vs {
		change := dash(v.FromState) + " -> " + v.ToState
		if v.FromState == v.ToState {
			change = v.ToState
		}
		host := "-"
		if v.Host != nil {
			host = *v.Host
			if v.FromHostStatus != nil || v.ToHostStatus != nil {
				host += " (" + dash(deref(v.FromHostStatus)) + " -> " + dash(deref(v.ToHostStatus)) + ")"
			}
		}
		cluster := ""
		if withCluster {
			cluster = v.Cluster + "\t"
		}
		reason := v.Reason
		if v.Hop != "" {
			reason = v.Hop + ": " + reason
		}
		fmt.Fprintf(tw, "%s\t%s%s\t%s\t%s\t%s\n", v.Time, cluster, v.Actor, change, host, clip(reason, width))
	}
	tw.Flush()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
