package recovery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// RecoverOptions are the flags of `kupgrade recover`.
type RecoverOptions struct {
	Cluster string
	DryRun  bool // look and probe, write nothing
	Force   bool // fail it even though a live lease is held
	// Prober looks at the host that was being worked on; nil skips the probe (--no-probe).
	Prober       Prober
	ProbeTimeout time.Duration // default 30s
}

// Recovery is what Recover found and did.
type Recovery struct {
	Cluster   string         `json:"cluster"`
	Stuck     bool           `json:"stuck"`
	DryRun    bool           `json:"dry_run"`
	Forced    bool           `json:"forced"` // a live lease was overridden
	Upgrade   *state.Upgrade `json:"-"`      // as read before; nil when the cluster has no upgrade
	Lease     *state.Lease   `json:"lease"`  // as read before
	LeaseLive bool           `json:"lease_live"`
	Before    state.State    `json:"state_before"`
	After     state.State    `json:"state_after"` // what it is now (or would be, on a dry run)
	Hosts     []HostRecovery `json:"hosts"`
}

// HostRecovery is one host whose in-flight status recover clears (or would clear).
type HostRecovery struct {
	Host    string           `json:"host"`
	Status  state.HostStatus `json:"status"` // the in-flight status found
	Cleared bool             `json:"cleared"`
	Probe   *ProbeResult     `json:"probe,omitempty"`
}

// Recover finds the cluster's in-flight operation that nobody is running any more, probes the
// host it was working on, and fails it through Fail (docs/states.md "Failing an operation: one
// path"). A live lease means slow, not stuck: it is refused with an error wrapping
// state.ErrConflict that names the holder and the expiry, unless opts.Force. Nothing stuck is no
// error (Stuck false), which is also what a second run finds.
func Recover(ctx context.Context, st Store, opts RecoverOptions) (Recovery, error) {
	rec := Recovery{Cluster: opts.Cluster, DryRun: opts.DryRun}
	u, err := st.Upgrade(ctx, opts.Cluster)
	if errors.Is(err, state.ErrNotFound) {
		return rec, nil
	}
	if errors.Is(err, state.ErrBadRow) {
		return rec, fmt.Errorf("recover: %w; `kupgrade upgrade failed --force` fails it whatever its times hold", err)
	}
	if err != nil {
		return rec, fmt.Errorf("recover: %w", err)
	}
	rec.Upgrade, rec.Before, rec.After = &u, u.State, u.State
	hosts, err := st.Hosts(ctx, opts.Cluster)
	if err != nil {
		return rec, fmt.Errorf("recover: %w", err)
	}
	stuck, targets := stuckHosts(u.State, hosts)
	if !stuck {
		return rec, nil
	}
	rec.Stuck = true
	if rec.Lease, err = st.Lease(ctx, opts.Cluster); errors.Is(err, state.ErrBadRow) {
		return rec, fmt.Errorf("recover: %w; nobody can tell whether its holder still works: if it is gone, "+
			"`kupgrade upgrade failed --force` fails the operation and deletes that lease: %w", err, state.ErrConflict)
	} else if err != nil {
		return rec, fmt.Errorf("recover: %w", err)
	}
	now := st.Now()
	rec.LeaseLive = rec.Lease.Live(now)
	if pid, gone := goneHolder(rec.Lease); rec.LeaseLive && !opts.Force && gone {
		return rec, fmt.Errorf("recover %s of cluster %s: %s, but that holder, process %d of this machine, is gone (killed or crashed): "+
			"nothing renews its lease; pass --force to recover now instead of waiting for it to expire: %w",
			u.State, opts.Cluster, rec.Lease.Holder(now), pid, state.ErrConflict)
	}
	if rec.LeaseLive && !opts.Force {
		return rec, fmt.Errorf("recover %s of cluster %s: %s: it is slow, not stuck; wait, or pass --force if that process is gone: %w",
			u.State, opts.Cluster, rec.Lease.Holder(now), state.ErrConflict)
	}
	rec.Forced = rec.LeaseLive
	by := "recover"
	if rec.Forced {
		by = "recover --force"
	}
	var evs []Evidence
	for _, h := range targets {
		pr := probe(ctx, st, u.Cluster, opts.Prober, h.Hostname, h.Status, u.Target(), opts.ProbeTimeout)
		rec.Hosts = append(rec.Hosts, HostRecovery{Host: h.Hostname, Status: h.Status, Probe: pr})
		evs = append(evs, newEvidence(by, u, rec.Lease, h, pr, now))
	}
	if len(targets) == 0 { // a cluster-wide step (images, networking): no host to look at
		evs = append(evs, newEvidence(by, u, rec.Lease, state.Host{}, nil, now))
	}
	if opts.DryRun {
		rec.After = wouldBe(u.State)
		return rec, nil
	}
	return rec, failAll(ctx, st, &rec, opts, evs)
}

// failAll fails the operation once per stuck host (a kubelet batch may have several), each
// compare-and-set on the state the previous write left.
func failAll(ctx context.Context, st Store, rec *Recovery, opts RecoverOptions, evs []Evidence) error {
	expect := rec.Before
	for i, ev := range evs {
		reason := fmt.Sprintf("recovered by kupgrade recover: no live lease on %s", expect)
		if rec.Forced {
			reason = fmt.Sprintf("recovered by kupgrade recover --force: overrode the live lease of %s", rec.Lease.Owner)
		}
		res, err := Fail(ctx, st, Request{Cluster: opts.Cluster, Actor: state.ActorRecover, Reason: reason,
			Host: ev.Host, Expect: expect, Force: opts.Force, Evidence: &ev})
		if err != nil {
			return fmt.Errorf("recover: %w", err)
		}
		expect, rec.After = res.ToState, res.ToState
		if i < len(rec.Hosts) && !res.NoOp {
			rec.Hosts[i].Cleared = res.Host != state.WholeCluster
		}
	}
	return nil
}

// stuckHosts says whether state s (with these hosts) has an operation in flight, and which hosts
// it left in flight: the in-flight states; upgrading-kubelets with hosts in a kubelet phase
// (draining-node, upgrading-kubelet, uncordoning-node); and
// a failed state whose host status was left in flight (a hand edit or an older tool).
func stuckHosts(s state.State, hosts []state.Host) (bool, []state.Host) {
	var out []state.Host
	for _, h := range hosts {
		if h.Status.InFlight() {
			out = append(out, h)
		}
	}
	if s.InFlight() {
		return true, out
	}
	// upgrading-kubelets with a host in a kubelet phase, or a host status left behind by a settled
	// or failed state (hand edit, older tool): it blocks the retry just the same.
	return len(out) > 0, out
}

// wouldBe is the state a dry run predicts.
func wouldBe(s state.State) state.State {
	if f, ok := s.FailedTwin(); ok {
		return f
	}
	return s
}
