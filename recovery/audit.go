package recovery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// AuditStore is the slice of state.Store one audit pass uses.
type AuditStore interface {
	Store
	InFlight(ctx context.Context) ([]state.InFlightOp, []state.BadRow, error)
}

// DefaultStaleAfter is StarlingX's audit threshold for a state with no lease at all.
const DefaultStaleAfter = time.Hour

// AuditOptions tune one pass.
type AuditOptions struct {
	// StaleAfter: an in-flight operation with no lease row older than this is failed (its age:
	// see since). Default 1h.
	StaleAfter time.Duration
	// Probers returns the prober for a cluster's hosts, or nil when this process cannot reach
	// them (no inventory for that cluster); nil Probers probes nothing.
	Probers      func(cluster string) Prober
	ProbeTimeout time.Duration
	// Emit, when set, is called with each action as it is decided (the `audit` events), and with
	// an OutcomeSkipped action for each cluster whose rows could not be read.
	Emit func(Action)
}

// Why an operation was judged stuck.
const (
	WhyLeaseExpired = "lease-expired"
	WhyStale        = "stale-state"
	WhyUnreadable   = "unreadable-row"
)

// Outcomes of an action.
const (
	OutcomeFailed  = "failed"   // the operation was failed through Fail
	OutcomeMovedOn = "moved-on" // the state changed after the pass read it: nothing written
	OutcomeError   = "error"    // the write failed for another reason (database down...)
	OutcomeSkipped = "skipped"  // the cluster's rows could not be read: judged and written nothing
)

// Action is one thing the audit did about one operation (and host).
type Action struct {
	Time       time.Time        `json:"time"`
	Cluster    string           `json:"cluster"`
	Host       string           `json:"host"`
	HostStatus state.HostStatus `json:"host_status,omitempty"`
	FromState  state.State      `json:"from_state"`
	ToState    state.State      `json:"to_state,omitempty"`
	Why        string           `json:"why"`
	Msg        string           `json:"msg"`
	Outcome    string           `json:"outcome"`
	Error      string           `json:"error,omitempty"`
	Probe      *ProbeResult     `json:"probe,omitempty"`
}

// AuditReport is what one pass saw and did.
type AuditReport struct {
	Now      time.Time           // the store's clock at the start of the pass
	InFlight []state.InFlightOp  // every in-flight operation the pass read
	Bad      []state.BadRow      // clusters whose rows could not be read: reported, left alone
	Actions  []Action            // in the order they were taken
	Failed   map[string]struct{} // clusters whose operation the pass failed
	Duration time.Duration
}

// Audit is one pass of the watch audit (docs/states.md "Stuck detection") over every cluster: it
// fails each in-flight operation whose lease expired, whatever its age, and each one with no
// lease row whose state was entered more than StaleAfter ago; a live lease is never touched.
// Every write goes through Fail with Expect set to the state the pass read, so a runner that
// finished meanwhile wins and the audit writes nothing (OutcomeMovedOn). One cluster's error
// does not stop the pass; the errors are joined in the returned error. A cluster whose rows
// cannot be read (a hand edit gone wrong) is not an error of the pass: it is in rep.Bad, emitted
// as OutcomeSkipped, and every other cluster is audited all the same.
func Audit(ctx context.Context, st AuditStore, opts AuditOptions) (AuditReport, error) {
	start := time.Now()
	if opts.StaleAfter <= 0 {
		opts.StaleAfter = DefaultStaleAfter
	}
	rep := AuditReport{Now: st.Now(), Failed: map[string]struct{}{}}
	ops, bad, err := st.InFlight(ctx)
	if err != nil {
		return rep, fmt.Errorf("audit: %w", err)
	}
	rep.InFlight, rep.Bad = ops, bad
	for _, b := range bad {
		if opts.Emit != nil {
			opts.Emit(Action{Time: rep.Now, Cluster: b.Cluster, FromState: b.State, Why: WhyUnreadable,
				Msg: BadRowFix(b), Outcome: OutcomeSkipped, Error: b.Err.Error()})
		}
	}
	var errs []error
	for _, op := range ops {
		why, msg := judge(op, rep.Now, opts.StaleAfter)
		if why == "" {
			continue
		}
		for _, a := range auditOp(ctx, st, op, why, msg, rep.Now, opts) {
			if a.Outcome == OutcomeError {
				errs = append(errs, fmt.Errorf("audit %s: %s", a.Cluster, a.Error))
			}
			if a.Outcome == OutcomeFailed {
				rep.Failed[a.Cluster] = struct{}{}
			}
			rep.Actions = append(rep.Actions, a)
			if opts.Emit != nil {
				opts.Emit(a)
			}
		}
	}
	rep.Duration = time.Since(start)
	return rep, errors.Join(errs...)
}

// judge says why op is stuck at now ("" when it is not).
func judge(op state.InFlightOp, now time.Time, staleAfter time.Duration) (why, msg string) {
	u, l := op.Upgrade, op.Lease
	switch {
	case l.Live(now):
		return "", "" // slow, not stuck
	case l != nil:
		return WhyLeaseExpired, fmt.Sprintf("the lease of %s for %s expired %s ago", l.Owner, l.Operation, Age(now, l.ExpiresAt))
	}
	if a := Age(now, InFlightSince(op)); a > staleAfter {
		what := string(u.State)
		if !u.State.InFlight() {
			what = fmt.Sprintf("host %s %s in %s", op.Hosts[0].Hostname, op.Hosts[0].Status, u.State)
		}
		return WhyStale, fmt.Sprintf("%s for %s with no lease (stale after %s)", what, a, staleAfter)
	}
	return "", ""
}

// InFlightSince is when op's in-flight thing began: for an in-flight state, when the state was entered;
// for a host left in flight in upgrading-kubelets (or in a settled state), when the newest of
// those hosts' own rows was written, which only a write about that host moves. Never the
// upgrade's updated_at, which writes about other hosts keep moving.
func InFlightSince(op state.InFlightOp) time.Time {
	if op.Upgrade.State.InFlight() || len(op.Hosts) == 0 {
		return op.Upgrade.StateEnteredAt
	}
	t := op.Hosts[0].UpdatedAt
	for _, h := range op.Hosts[1:] {
		if h.UpdatedAt.After(t) {
			t = h.UpdatedAt
		}
	}
	return t
}

// auditOp fails op, once per host it left in flight (a kubelet batch may have several).
func auditOp(ctx context.Context, st AuditStore, op state.InFlightOp, why, msg string, now time.Time, opts AuditOptions) []Action {
	u := op.Upgrade
	var p Prober
	if opts.Probers != nil {
		p = opts.Probers(u.Cluster)
	}
	_, hosts := stuckHosts(u.State, op.Hosts)
	if len(hosts) == 0 {
		hosts = []state.Host{{}} // a cluster-wide step: no host to look at or clear
	}
	expect := u.State
	var out []Action
	for _, h := range hosts {
		pr := probe(ctx, st, u.Cluster, p, h.Hostname, h.Status, u.Target(), opts.ProbeTimeout)
		a := Action{Time: now, Cluster: u.Cluster, Host: h.Hostname, HostStatus: h.Status,
			FromState: expect, Why: why, Msg: msg, Probe: pr}
		ev := newEvidence(why, u, op.Lease, h, pr, now)
		res, err := Fail(ctx, st, Request{Cluster: u.Cluster, Actor: state.ActorWatch,
			Reason: "kupgrade watch: " + msg, Host: h.Hostname, Expect: expect, Evidence: &ev})
		switch {
		case errors.Is(err, state.ErrConflict), errors.Is(err, state.ErrNotFound), err == nil && res.NoOp:
			a.Outcome = OutcomeMovedOn // the runner (or a person) got there first
		case err != nil:
			a.Outcome, a.Error = OutcomeError, err.Error()
		default:
			a.Outcome, a.ToState = OutcomeFailed, res.ToState
			expect = res.ToState
		}
		if err != nil && a.Outcome == OutcomeMovedOn {
			a.Error = err.Error()
		}
		out = append(out, a)
		if a.Outcome != OutcomeFailed {
			break // the operation moved on; whatever it is now is someone else's
		}
	}
	return out
}
