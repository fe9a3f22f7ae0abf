package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// rfc3339 prints t in UTC as docs/cli.md requires.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// upgradeView is `upgrade show -o json` (docs/cli.md): stable keys, RFC 3339 UTC times.
type upgradeView struct {
	UUID        string `json:"uuid"`
	Cluster     string `json:"cluster"`
	FromVersion string `json:"from_version"`
	ToVersion   string `json:"to_version"`
	// Hops are the versions an upgrade across several minors walks, to_version last; Hop is the
	// running one, from 1; HopsLeft how many follow it. Absent for a one-hop upgrade.
	Hops             []string   `json:"hops,omitempty"`
	Hop              int        `json:"hop,omitempty"`
	HopsLeft         *int       `json:"hops_left,omitempty"`
	State            string     `json:"state"`
	StateEnteredAt   string     `json:"state_entered_at"`
	CreatedAt        string     `json:"created_at"`
	UpdatedAt        string     `json:"updated_at"`
	RecoveryAttempts int        `json:"recovery_attempts"`
	Lease            *leaseView `json:"lease"`
	// Next is the exact command to type next (recovery.Next); Wait says why there is none to
	// type now (another kupgrade holds the lease). Both null once the upgrade has ended.
	Next        *string      `json:"next"`
	Wait        *string      `json:"wait,omitempty"`
	LastFailure *failureView `json:"last_failure,omitempty"`
	// FailedHosts are the hosts left in a failed status, each as "host (status)": a worker
	// whose kubelet failed while the cluster stays upgrading-kubelets.
	FailedHosts []string `json:"failed_hosts,omitempty"`
	// EtcdSnapshots are the etcd snapshots this upgrade took (one per hop at most), newest first.
	EtcdSnapshots []state.EtcdSnapshot `json:"etcd_snapshots,omitempty"`
	hopsLine      string
}

type leaseView struct {
	Owner       string `json:"owner"`
	Operation   string `json:"operation"`
	HeartbeatAt string `json:"heartbeat_at"`
	ExpiresAt   string `json:"expires_at"`
}

func newUpgradeView(u state.Upgrade, l *state.Lease) upgradeView {
	v := upgradeView{
		UUID: u.UUID, Cluster: u.Cluster, FromVersion: u.FromVersion, ToVersion: u.ToVersion,
		State: string(u.State), StateEnteredAt: rfc3339(u.StateEnteredAt),
		CreatedAt: rfc3339(u.CreatedAt), UpdatedAt: rfc3339(u.UpdatedAt),
		RecoveryAttempts: u.RecoveryAttempts,
	}
	if len(u.Hops) > 1 {
		left := u.HopsLeft()
		v.Hops, v.Hop, v.HopsLeft, v.hopsLine = u.Hops, u.Hop+1, &left, u.HopsLine()
	}
	if l != nil {
		v.Lease = &leaseView{Owner: l.Owner, Operation: l.Operation,
			HeartbeatAt: rfc3339(l.HeartbeatAt), ExpiresAt: rfc3339(l.ExpiresAt)}
	}
	return v
}

// writeUpgrade prints the upgrade as a two-column table for people.
func writeUpgrade(w io.Writer, v upgradeView, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	lease := "-"
	if v.Lease != nil {
		exp, _ := time.Parse(time.RFC3339, v.Lease.ExpiresAt)
		when := "expires in " + exp.Sub(now).Round(time.Second).String()
		if !now.Before(exp) {
			when = "EXPIRED " + now.Sub(exp).Round(time.Second).String() + " ago"
		}
		lease = fmt.Sprintf("%s (%s, %s)", v.Lease.Owner, v.Lease.Operation, when)
	}
	rows := [][2]string{
		{"uuid", v.UUID}, {"cluster", v.Cluster}, {"from_version", v.FromVersion},
		{"to_version", v.ToVersion}, {"state", v.State}, {"state_entered_at", v.StateEnteredAt},
		{"created_at", v.CreatedAt}, {"updated_at", v.UpdatedAt},
		{"recovery_attempts", fmt.Sprint(v.RecoveryAttempts)}, {"lease", lease},
	}
	if v.hopsLine != "" {
		rows = slices.Insert(rows, 4, [2]string{"hops", v.hopsLine})
	}
	if len(v.FailedHosts) > 0 {
		rows = append(rows, [2]string{"failed_hosts", strings.Join(v.FailedHosts, ", ")})
	}
	for _, s := range v.EtcdSnapshots {
		rows = append(rows, [2]string{"etcd_snapshot", snapshotLine(s, now)})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	tw.Flush()
}

// hostView is one element of `host list -o json` (docs/cli.md).
type hostView struct {
	ID                  int64             `json:"id"`
	Hostname            string            `json:"hostname"`
	Personality         state.Personality `json:"personality"`
	TargetVersion       *string           `json:"target_version"`
	ControlPlaneVersion *string           `json:"control_plane_version"`
	KubeletVersion      *string           `json:"kubelet_version"`
	Status              *string           `json:"status"`
	LastFailure         *string           `json:"last_failure"`
	Resolved            bool              `json:"resolved"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// newHostViews is hosts for -o json; ended: the upgrade has ended (see resolved).
func newHostViews(hosts []state.Host, ended bool) []hostView {
	out := make([]hostView, 0, len(hosts))
	for _, h := range hosts {
		out = append(out, hostView{
			ID: h.ID, Hostname: h.Hostname, Personality: h.Personality,
			TargetVersion: nullable(h.TargetVersion), ControlPlaneVersion: nullable(h.ControlPlaneVersion),
			KubeletVersion: nullable(h.KubeletVersion), Status: nullable(string(h.Status)),
			LastFailure: nullable(h.LastFailure), Resolved: resolved(h, ended),
		})
	}
	return out
}

// writeHosts prints the host table, each last failure cut to width and marked when resolved.
func writeHosts(w io.Writer, hosts []state.Host, width int, ended bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tHOSTNAME\tPERSONALITY\tTARGET\tCONTROL-PLANE\tKUBELET\tSTATUS\tLAST FAILURE")
	for _, h := range hosts {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", h.ID, h.Hostname, h.Personality,
			dash(h.TargetVersion), dash(h.ControlPlaneVersion), dash(h.KubeletVersion), h.Status, dash(clip(h.LastFailure, width))+resolvedMark(h, ended))
	}
	tw.Flush()
}

// clip shortens s for a table cell; `-o json` has the whole text.
func clip(s string, n int) string {
	if r := []rune(s); n > 0 && len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// cellWidth is n, or 0 (no cutting) under --wide.
func cellWidth(wide bool, n int) int {
	if wide {
		return 0
	}
	return n
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeJSON prints one JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// resolved reports a failure the host later got past: the upgrade has since ended (complete, its
// apps updated, or aborted: ended), or, as a failed host goes back to idle, the host's kubelet
// step succeeded after it.
func resolved(h state.Host, ended bool) bool {
	return h.LastFailure != "" && (ended || h.Status == state.UpgradedKubelet)
}

func resolvedMark(h state.Host, ended bool) string {
	if resolved(h, ended) {
		return " (resolved)"
	}
	return ""
}

// ended reports an upgrade in a state `upgrade delete` takes that is no failure: nothing of it
// is left to run, so no failure of its hosts is still open.
func ended(s state.State) bool {
	return !s.Failed() && slices.Contains(state.DeletableStates(), s)
}

// snapshotLine is an etcd snapshot as `upgrade show` prints it: what it is, when it was saved
// and, for the one abort restores from (hop 0), what `abort --restore-etcd` would discard.
func snapshotLine(s state.EtcdSnapshot, now time.Time) string {
	line := s.String() + ", " + upgrade.SnapshotSaved(s, now)
	if s.Hop == 0 {
		line += "; `upgrade abort --restore-etcd` puts etcd back to this revision, discarding every API write since"
	}
	return line
}
