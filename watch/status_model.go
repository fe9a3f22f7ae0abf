package watch

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/recovery"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// maxStatusClusters caps the table of the status page: one database may hold thousands of
// clusters, and the ones that need a person are listed first.
const maxStatusClusters = 500

// maxFailureReads caps the clusters whose events one request reads for their last failure.
const maxFailureReads = 50

// UnretriedAfter is how long a failed state may wait for its retry before the status page marks
// it (the alert rules shipped in deploy/prometheus use the same hour).
const UnretriedAfter = time.Hour

// Marks of a cluster that needs a person.
const (
	MarkStuck     = "stuck"     // in flight, and nobody holds a live lease on it
	MarkUnretried = "unretried" // failed, and nobody retried it for UnretriedAfter
)

// Status is what the status page shows, as /status.json serves it. Leases, hosts in flight and
// unreadable rows are read from the store for each request, not taken from the last pass.
type Status struct {
	Now      time.Time         `json:"now"`
	Holding  bool              `json:"holding_audit_lock"`
	LastPass *PassSummary      `json:"last_pass"`
	LastErr  string            `json:"last_pass_error,omitempty"`
	Total    int               `json:"total"`
	More     int               `json:"more"` // clusters left out of Clusters by the cap
	Clusters []ClusterStatus   `json:"clusters"`
	Fleets   []fleet.Overview  `json:"fleets"`        // the fleets of `kupgrade fleet run`, if any
	Actions  []recovery.Action `json:"audit_actions"` // newest first
	Events   []state.Event     `json:"events"`        // newest first
}

// PassSummary is the last audit pass of this watcher.
type PassSummary struct {
	At       time.Time `json:"at"`
	Took     string    `json:"took"`
	InFlight int       `json:"in_flight"`
	Actions  int       `json:"actions"`
}

// ClusterStatus is one cluster as an operator needs it: how long in which state, who works on
// it, what failed last and why, and what to type next.
type ClusterStatus struct {
	Cluster        string    `json:"cluster"`
	State          string    `json:"state"`
	ToVersion      string    `json:"to_version"`
	Hop            string    `json:"hop,omitempty"` // which hop runs and how many are left (several minors)
	StateEnteredAt time.Time `json:"state_entered_at"`
	AgeSeconds     int64     `json:"age_seconds"`
	Host           string    `json:"host,omitempty"`          // the host(s) in flight
	HostStatuses   string    `json:"host_statuses,omitempty"` // each of them with its status: "worker-0 draining-node"
	Lease          string    `json:"lease,omitempty"`         // its holder, for people
	LeaseLive      bool      `json:"lease_live"`
	Mark           string    `json:"mark,omitempty"`         // MarkStuck, MarkUnretried
	Class          string    `json:"class"`                  // failed, inflight or ""
	FailedHosts    string    `json:"failed_hosts,omitempty"` // hosts left failed: "worker-0 (upgrading-kubelet-failed)"
	LastFailure    string    `json:"last_failure,omitempty"`
	Finding        string    `json:"finding,omitempty"` // the probe's classified finding
	Next           string    `json:"next,omitempty"`
	Error          string    `json:"error,omitempty"`    // why its rows cannot be read, and the fix
	Timeline       *Timeline `json:"timeline,omitempty"` // its steps and hosts (the first maxTimelines rows)
	TimelineError  string    `json:"timeline_error,omitempty"`
}

// Status reads the status of every cluster now.
func (w *Watcher) Status(ctx context.Context) (Status, error) {
	ups, listErr := w.Store.Upgrades(ctx)
	if listErr != nil && !errors.Is(listErr, state.ErrBadRow) { // a bad row is shown, not fatal
		return Status{}, fmt.Errorf("read upgrades: %w", listErr)
	}
	ops, bad, err := w.Store.InFlight(ctx)
	if err != nil {
		return Status{}, fmt.Errorf("read operations in flight: %w", err)
	}
	evs, err := w.Store.Events(ctx, state.AllClusters, 20)
	if err != nil {
		return Status{}, fmt.Errorf("read events: %w", err)
	}
	for i := range evs {
		evs[i].Reason = clean(evs[i].Reason) // a host's output: no terminal escapes on the page
	}
	s := w.snapshot()
	st := Status{Now: w.Store.Now(), Holding: s.Holding, Total: len(ups), Actions: s.Recent, Events: evs}
	if s.LastErr != nil {
		st.LastErr = s.LastErr.Error()
	}
	if l := s.Last; l != nil {
		st.LastPass = &PassSummary{At: l.Now.Add(l.Duration), Took: l.Duration.Round(time.Millisecond).String(),
			InFlight: len(l.InFlight), Actions: len(l.Actions)}
	}
	rows, err := allFleetRows(ctx, w.Store)
	if err != nil {
		return Status{}, err
	}
	st.Fleets = readFleets(rows, st.Now)
	members := recovery.FleetMembers(rows)
	next := func(cmd, cluster string) string {
		var m *state.FleetRow
		if r, ok := members[cluster]; ok {
			m = &r
		}
		return recovery.Where{Flags: w.CommandFlags, InventoryCluster: w.InventoryCluster}.Command(cmd, cluster, m)
	}
	st.Clusters, st.More = w.clusterRows(ups, ops, unreadable(listErr, bad), st.Now, next)
	uuids := make(map[string]string, len(ups))
	for _, u := range ups {
		uuids[u.Cluster] = u.UUID
	}
	w.addFailures(ctx, st.Clusters, uuids, next)
	failedFirst(st.Clusters)
	w.addTimelines(ctx, st.Clusters, uuids, st.Now)
	return st, nil
}

// unreadable maps each cluster with a row that cannot be read to what is wrong with it.
func unreadable(listErr error, bad []state.BadRow) map[string]string {
	m := map[string]string{}
	for _, re := range state.RowErrors(listErr) {
		m[re.Cluster] = re.Error()
	}
	for _, b := range bad {
		m[b.Cluster] = b.Err.Error() + "; " + recovery.BadRowFix(b)
	}
	return m
}

// clusterRows lists the clusters that need a person first (unreadable, marked, failed, in
// flight), then the others, up to the cap.
func (w *Watcher) clusterRows(ups []state.Upgrade, ops []state.InFlightOp, bad map[string]string, now time.Time, next nextFunc) ([]ClusterStatus, int) {
	inFlight := map[string]state.InFlightOp{}
	for _, op := range ops {
		inFlight[op.Upgrade.Cluster] = op
	}
	var first, rest []ClusterStatus
	for _, u := range ups {
		op, busy := inFlight[u.Cluster]
		r := clusterRow(u, op, busy, now, next)
		r.Error = bad[u.Cluster]
		switch {
		case r.Error != "" || r.Mark != "" || u.State.Failed() || busy:
			first = append(first, r)
		default:
			rest = append(rest, r)
		}
	}
	rows := append(first, rest...)
	if len(rows) > maxStatusClusters {
		return rows[:maxStatusClusters], len(rows) - maxStatusClusters
	}
	return rows, 0
}

// failedFirst moves the rows classed failed once their hosts were read (a host left failed in
// upgrading-kubelets) before the rows that need nobody, keeping the order otherwise.
func failedFirst(rows []ClusterStatus) {
	slices.SortStableFunc(rows, func(a, b ClusterStatus) int { return needsNobody(a) - needsNobody(b) })
}

func needsNobody(r ClusterStatus) int {
	if r.Error != "" || r.Mark != "" || r.Class != "" {
		return 0
	}
	return 1
}

// nextFunc completes a cluster's next command for where it is pasted (Where.Command).
type nextFunc func(cmd, cluster string) string

// clusterRow is one cluster's row without its last failure; busy: op is in flight.
func clusterRow(u state.Upgrade, op state.InFlightOp, busy bool, now time.Time, next nextFunc) ClusterStatus {
	r := ClusterStatus{Cluster: u.Cluster, State: string(u.State), ToVersion: u.ToVersion, Hop: u.HopsLine(),
		StateEnteredAt: u.StateEnteredAt, AgeSeconds: int64(recovery.Age(now, u.StateEnteredAt).Seconds())}
	var hosts, statuses []string
	for _, h := range op.Hosts {
		hosts = append(hosts, h.Hostname)
		statuses = append(statuses, h.Hostname+" "+h.Status.String())
	}
	r.Host, r.HostStatuses = strings.Join(hosts, ", "), strings.Join(statuses, ", ")
	if l := op.Lease; l != nil {
		r.LeaseLive = l.Live(now)
		r.Lease = l.Owner + " (" + l.Operation + ")"
		if !r.LeaseLive {
			r.Lease += ", expired " + recovery.Age(now, l.ExpiresAt).String() + " ago"
		}
	}
	switch {
	case busy && !r.LeaseLive:
		r.Mark, r.Class = MarkStuck, "inflight"
	case busy:
		r.Class = "inflight"
	case u.State.Failed():
		r.Class = "failed"
		if now.Sub(u.StateEnteredAt) > UnretriedAfter {
			r.Mark = MarkUnretried
		}
	}
	if u.State.Valid() {
		cmd, _ := recovery.Next(recovery.NextIn{State: u.State, Host: r.Host, InFlight: busy, Lease: op.Lease, Now: now})
		r.Next = next(cmd, u.Cluster)
	}
	return r
}
