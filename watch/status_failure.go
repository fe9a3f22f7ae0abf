package watch

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/recovery"

	"github.com/kupgrade/kupgrade/state"
)

// failureEvents is how far back in a cluster's history the status page looks for its last
// failure (a kubelet batch writes one event per host).
const failureEvents = 50

// Failure is the newest failure of a cluster as its events record it.
type Failure struct {
	At     time.Time
	Host   string
	Reason string
	// Finding is the classified finding of the probe: the failure's own evidence (recover and
	// the audit probe before they fail), or the probe evidence event the runner adds after it.
	Finding string
	// Parts are Finding's parts, for machines (upgrade show -o json).
	Parts FindingParts
}

// FindingParts are a finding's class (empty when the host was not probed), its summary and the
// advice it gives.
type FindingParts struct{ Class, Summary, Advice string }

// Text is the finding for people: "CLASS: SUMMARY ADVICE".
func (p FindingParts) Text() string {
	s := p.Summary
	if p.Class != "" {
		s = p.Class + ": " + s
	}
	if p.Advice != "" {
		s += " " + p.Advice
	}
	return s
}

// addFailures fills in the last failure, its finding, the hosts left failed and the host to
// retry of the rows of an upgrade that has not ended (CurrentFailure: of the current upgrade,
// from its hosts); a row with a failed host is classed failed, as a failed state is.
func (w *Watcher) addFailures(ctx context.Context, rows []ClusterStatus, uuids map[string]string, next nextFunc) {
	reads := 0
	for i := range rows {
		r := &rows[i]
		s := state.State(r.State)
		if !s.Valid() || ended(s) || reads == maxFailureReads {
			continue
		}
		reads++
		f, failed, err := w.currentFailure(ctx, state.Upgrade{Cluster: r.Cluster, UUID: uuids[r.Cluster], State: s})
		if err != nil {
			r.LastFailure = "cannot read its events: " + err.Error()
			continue
		}
		if len(failed) > 0 {
			r.FailedHosts, r.Class = strings.Join(failed, ", "), "failed"
		}
		if f == nil {
			continue
		}
		r.LastFailure, r.Finding = f.At.UTC().Format(time.RFC3339)+" "+f.Reason, f.Finding
		if f.Host != state.WholeCluster {
			r.LastFailure = f.At.UTC().Format(time.RFC3339) + " [" + f.Host + "] " + f.Reason
		}
		if r.Host == "" && !r.LeaseLive { // retry on the host that failed
			cmd, _ := recovery.Next(recovery.NextIn{State: s, Host: f.Host})
			r.Next = next(cmd, r.Cluster)
		}
	}
}

// ended reports whether s is a state in which the upgrade has ended (it may be deleted).
func ended(s state.State) bool { return !s.Failed() && slices.Contains(state.DeletableStates(), s) }

// currentFailure reads u's hosts and events: its CurrentFailure (nil when none) and its hosts
// left failed, each as "host (status)".
func (w *Watcher) currentFailure(ctx context.Context, u state.Upgrade) (*Failure, []string, error) {
	hosts, err := w.Store.Hosts(ctx, u.Cluster)
	if err != nil {
		return nil, nil, err
	}
	evs, err := w.Store.Events(ctx, u.Cluster, failureEvents)
	if err != nil {
		return nil, nil, err
	}
	var failed []string
	for _, h := range FailedHosts(hosts) {
		failed = append(failed, h.Hostname+" ("+string(h.Status)+")")
	}
	if f, ok := CurrentFailure(u, hosts, evs); ok {
		return &f, failed, nil
	}
	return nil, failed, nil
}

// LastFailure finds the newest failure in evs (newest first): an event into a failed state, or
// one whose evidence records an error or a stuck operation (a kubelet's failure leaves the
// cluster state as it was). Its finding is its own evidence's, else that of the newest probe
// event written after it about the same host.
func LastFailure(evs []state.Event) (Failure, bool) {
	probed := map[string]FindingParts{} // host -> finding of the newest probe event seen so far
	for _, e := range evs {
		ev, err := recovery.ParseEvidence(e.Evidence)
		if err != nil {
			continue
		}
		if !isFailure(e, ev) {
			if p := findingParts(ev); p.Summary != "" && probed[e.Hostname].Summary == "" {
				probed[e.Hostname] = p
			}
			continue
		}
		f := Failure{At: e.CreatedAt, Host: e.Hostname, Reason: clean(e.Reason), Parts: findingParts(ev)}
		if f.Parts.Summary == "" {
			f.Parts = probed[e.Hostname]
		}
		f.Finding = f.Parts.Text()
		return f, true
	}
	return Failure{}, false
}

// findingParts is the evidence's finding: its class, summary and advice, or why the host could
// not be probed.
func findingParts(ev recovery.Evidence) FindingParts {
	switch {
	case ev.Finding != nil:
		return FindingParts{Class: string(ev.Finding.Class), Summary: ev.Finding.Summary, Advice: ev.Finding.Next}
	case ev.Unreachable:
		return FindingParts{Summary: "host unreachable, not probed: " + ev.ProbeError}
	case ev.ProbeError != "":
		return FindingParts{Summary: "not probed: " + ev.ProbeError}
	}
	return FindingParts{}
}
