package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/kupgrade/kupgrade/state"
)

// testRandomSequences: the invariants of docs/states.md hold after every step of random sequences
// of operations by three owners (start, start another host, finish, fail under each lease
// condition, take over, renew, complete, the next hop of a two-hop upgrade from the hop it is at
// or a stale one), with time moving so that leases expire. rapid shrinks a
// failing sequence to a short one and prints it. KUPGRADE_RAPID_CHECKS (rapid's -rapid.checks)
// makes it longer.
func testRandomSequences(t *testing.T, b Backend) {
	clock := NewClock()
	s := b.Open(t, state.WithClock(clock.Now))
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++ // one database for every run: each run has a cluster of its own
		m := &machine{s: s, clock: clock, cluster: fmt.Sprintf("p%d", run)}
		createHops(t, s, m.cluster) // two hops: next-hop is among the operations
		// Start anywhere the step table leads, so that short sequences reach every state.
		walk(t, s, m.cluster, rapid.SampledFrom(state.AllStates()).Draw(rt, "from"))
		for i := range rapid.IntRange(1, 30).Draw(rt, "steps") {
			before := m.read(rt)
			what, err := m.act(rt)
			after := m.read(rt)
			if err != nil && !errors.Is(err, state.ErrConflict) && !errors.Is(err, state.ErrBadInput) &&
				!errors.Is(err, state.ErrRefused) && !errors.Is(err, state.ErrNotFound) {
				rt.Fatalf("step %d, %s: an error of no class: %v", i, what, err)
			}
			if err != nil && !before.same(after) {
				rt.Fatalf("step %d, %s was refused (%v) but wrote:\nbefore %+v\nafter  %+v", i, what, err, before, after)
			}
			if msg := after.broken(before); msg != "" {
				rt.Fatalf("step %d, %s: %s\nbefore %+v\nafter  %+v", i, what, msg, before, after)
			}
		}
	})
}

// machine drives one store with random operations.
type machine struct {
	s       state.Store
	clock   *Clock
	cluster string
}

var owners = []string{"a", "b", "c"}

// act draws one operation and applies it; what says which, for the report.
func (m *machine) act(rt *rapid.T) (what string, err error) {
	ctx := context.Background()
	u, err := m.s.Upgrade(ctx, m.cluster)
	if err != nil {
		rt.Fatalf("read upgrade: %v", err)
	}
	owner := rapid.SampledFrom(owners).Draw(rt, "owner")
	host := rapid.SampledFrom(twoControllers).Draw(rt, "host").Hostname
	cur := m.status(rt, host)
	lease := state.LeaseSpec{Owner: owner, Operation: "op", TTL: 30 * time.Second}
	step := rapid.SampledFrom(state.Steps()).Draw(rt, "step")
	var c state.Change
	switch k := rapid.IntRange(0, 8).Draw(rt, "kind"); k {
	case 0: // start a step from the current state
		var opts []state.ChangeOption
		if step.Scope == state.ScopeControlPlane {
			opts = append(opts, state.OnHost(host, cur, state.UpgradingControlPlane), state.WithTarget("v1.30.2"))
		}
		if step.Scope == state.ScopeKubeletBatch {
			opts = append(opts, state.OnHost(host, cur, state.UpgradingKubelet))
		}
		c = state.Start(m.cluster, state.ActorRunner, u.State, step.Running, lease, opts...)
	case 1: // another host of a kubelet batch
		c = state.StartHost(m.cluster, state.ActorRunner, u.State, owner, state.OnHost(host, cur, state.UpgradingKubelet))
	case 2: // finish, the last write of the operation
		opts := []state.ChangeOption{state.ReleaseLease()}
		if cur.InFlight() {
			done := state.HostIdle
			if cur == state.UpgradingKubelet {
				done = state.UpgradedKubelet
			}
			opts = append(opts, state.OnHost(host, cur, done))
		}
		c = state.Finish(m.cluster, state.ActorRunner, u.State, step.Done, owner, opts...)
	case 3, 4: // fail under one of the three lease conditions, maybe keeping the lease
		cond := rapid.SampledFrom([]state.LeaseCond{state.HeldBy(owner), state.NotLive(), state.Forced()}).Draw(rt, "cond")
		to, ok := u.State.FailedTwin()
		if !ok {
			to = u.State
		}
		var opts []state.ChangeOption
		if cur.InFlight() {
			opts = append(opts, state.OnHost(host, cur, state.HostIdle))
		}
		if rapid.Bool().Draw(rt, "keep") {
			opts = append(opts, state.KeepLease())
		}
		c = state.Fail(m.cluster, state.ActorWatch, u.State, to, cond, opts...)
	case 5:
		c = state.TakeOver(m.cluster, state.ActorRunner, u.State, lease)
	case 6: // next hop, from the hop the upgrade is at or a stale one (complete is a start and a finish)
		c = state.NextHop(m.cluster, state.ActorRunner, u.State, rapid.IntRange(0, 1).Draw(rt, "hop"))
	case 7:
		_, err := m.s.RenewLease(ctx, m.cluster, owner, 30*time.Second)
		return "renew by " + owner, err
	default:
		d := time.Duration(rapid.IntRange(1, 60).Draw(rt, "seconds")) * time.Second
		m.clock.Add(d)
		return "time +" + d.String(), nil
	}
	_, err = m.s.Apply(ctx, c)
	return fmt.Sprintf("%s -> %s by %s on %s", c.From(), c.To(), owner, host), err
}

func (m *machine) status(rt *rapid.T, host string) state.HostStatus {
	hs, err := m.s.Hosts(context.Background(), m.cluster)
	if err != nil {
		rt.Fatalf("read hosts: %v", err)
	}
	for _, h := range hs {
		if h.Hostname == host {
			return h.Status
		}
	}
	return state.HostIdle
}

// view is what the invariants look at.
type view struct {
	State      state.State
	Statuses   map[string]state.HostStatus
	Lease      string // owner, "" for none
	Generation int64
	Events     int
	LastChange state.State // to_state of the newest event that changed the state
	Hop        int
}

func (m *machine) read(rt *rapid.T) view {
	ctx := context.Background()
	u, err := m.s.Upgrade(ctx, m.cluster)
	if err != nil {
		rt.Fatalf("read upgrade: %v", err)
	}
	v := view{State: u.State, Statuses: map[string]state.HostStatus{}, Hop: u.Hop}
	hs, err := m.s.Hosts(ctx, m.cluster)
	if err != nil {
		rt.Fatalf("read hosts: %v", err)
	}
	for _, h := range hs {
		v.Statuses[h.Hostname] = h.Status
	}
	l, err := m.s.Lease(ctx, m.cluster)
	if err != nil {
		rt.Fatalf("read lease: %v", err)
	}
	if l != nil {
		v.Lease, v.Generation = l.Owner, l.Generation
	}
	evs, err := m.s.Events(ctx, m.cluster, 0)
	if err != nil {
		rt.Fatalf("read events: %v", err)
	}
	v.Events = len(evs)
	for _, e := range evs { // newest first
		if e.FromState != e.ToState {
			v.LastChange = e.ToState
			break
		}
	}
	return v
}

func (v view) same(w view) bool {
	if v.State != w.State || v.Hop != w.Hop || v.Lease != w.Lease || v.Generation != w.Generation || v.Events != w.Events {
		return false
	}
	for h, s := range v.Statuses {
		if w.Statuses[h] != s {
			return false
		}
	}
	return true
}

// broken names the first invariant v breaks, coming from before.
func (v view) broken(before view) string {
	inFlightHosts := 0
	for _, s := range v.Statuses {
		if s.InFlight() {
			inFlightHosts++
		}
	}
	switch {
	case !v.State.Valid():
		return fmt.Sprintf("state %q is not a state", v.State)
	case v.State.InFlight() && v.Lease == "":
		return fmt.Sprintf("state %s is in flight with no lease", v.State)
	case inFlightHosts > 0 && v.Lease == "":
		return "a host is in flight with no lease"
	case v.State.Failed() && v.Statuses != nil && hasStatus(v, state.UpgradingControlPlane):
		return fmt.Sprintf("state %s is failed but a host is still upgrading-control-plane: the retry would be refused", v.State)
	case v.LastChange != v.State:
		return fmt.Sprintf("the newest state change went to %s, the state is %s: an event is missing", v.LastChange, v.State)
	case v.Hop < before.Hop || v.Hop > before.Hop+1 || v.Hop >= len(hopsTo):
		return fmt.Sprintf("the hop went from %d to %d", before.Hop+1, v.Hop+1)
	case v.Hop != before.Hop && (v.State != state.UpgradeStarted || v.Lease != "" || inFlightHosts > 0):
		return fmt.Sprintf("the next hop began in state %s, lease %q, %d hosts in flight", v.State, v.Lease, inFlightHosts)
	case v.Events < before.Events:
		return "events were lost"
	case v.Lease != "" && v.Lease != before.Lease && v.Generation <= before.Generation && before.Lease != "":
		return fmt.Sprintf("the lease went from %s to %s without a new generation", before.Lease, v.Lease)
	}
	return ""
}

func hasStatus(v view, s state.HostStatus) bool {
	for _, x := range v.Statuses {
		if x == s {
			return true
		}
	}
	return false
}
