package storetest

import (
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// testGenerations: every acquisition or takeover of a cluster's lease gets a larger generation
// (the fencing token the hosts compare), and a renewal keeps it.
func testGenerations(t *testing.T, b Backend) {
	clock := NewClock()
	s := b.Open(t, state.WithClock(clock.Now))
	ctx := t.Context()
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradedNetworking)
	take := func(owner string, from state.State) int64 {
		t.Helper()
		lease := state.LeaseSpec{Owner: owner, Operation: "control-plane@controller-0", TTL: 30 * time.Second}
		c := state.Start("c1", state.ActorRunner, from, state.UpgradingFirstMaster, lease)
		if from == state.UpgradingFirstMaster {
			c = state.TakeOver("c1", state.ActorRunner, from, lease)
		}
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatalf("%s takes the lease: %v", owner, err)
		}
		l, err := s.Lease(ctx, "c1")
		if err != nil || l == nil || l.Owner != owner {
			t.Fatalf("lease after %s took it: %+v, %v", owner, l, err)
		}
		return l.Generation
	}
	first := take("a", state.UpgradedNetworking)
	renewed, err := s.RenewLease(ctx, "c1", "a", 30*time.Second)
	if err != nil || renewed.Generation != first {
		t.Fatalf("renewal: generation %d, %v; want %d kept", renewed.Generation, err, first)
	}
	clock.Add(31 * time.Second)
	second := take("b", state.UpgradingFirstMaster) // takeover of a's expired lease
	if second <= first {
		t.Fatalf("takeover: generation %d, want more than %d", second, first)
	}
	ops, bad, err := s.InFlight(ctx)
	if err != nil || len(bad) != 0 || len(ops) != 1 || ops[0].Lease == nil || ops[0].Lease.Generation != second {
		t.Fatalf("InFlight reports the lease's generation %d: %+v, %v", second, ops, err)
	}
	if _, err := s.Apply(ctx, state.Fail("c1", state.ActorRunner, state.UpgradingFirstMaster, state.UpgradingFirstMasterFailed,
		state.HeldBy("b"))); err != nil {
		t.Fatal(err)
	}
	if third := take("c", state.UpgradingFirstMasterFailed); third <= second {
		t.Fatalf("acquire after a release: generation %d, want more than %d", third, second)
	}
}

// testDatabaseClock: with no clock of its own, the store judges leases on the database's
// clock. A lease that the database says expires in 2 s is live, one it says expired 2 s ago is
// not.
func testDatabaseClock(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradedNetworking)
	if _, err := s.Apply(ctx, state.Start("c1", state.ActorRunner, state.UpgradedNetworking, state.UpgradingFirstMaster,
		state.LeaseSpec{Owner: "a", Operation: "op", TTL: 2 * time.Second})); err != nil {
		t.Fatal(err)
	}
	l, err := s.Lease(ctx, "c1")
	if err != nil || l == nil || !l.Live(s.Now()) {
		t.Fatalf("a lease the database wrote 2 s ahead of its clock must be live: %+v, %v (now %v)", l, err, s.Now())
	}
	if d := l.ExpiresAt.Sub(l.HeartbeatAt); d != 2*time.Second {
		t.Fatalf("expires_at - heartbeat_at = %v, want the TTL, 2s", d)
	}
	time.Sleep(2100 * time.Millisecond)
	if l.Live(s.Now()) {
		t.Fatalf("lease expired on the database's clock is still live at %v: %+v", s.Now(), l)
	}
	_, err = s.Apply(ctx, state.TakeOver("c1", state.ActorRunner, state.UpgradingFirstMaster,
		state.LeaseSpec{Owner: "b", Operation: "op", TTL: 30 * time.Second}))
	if err != nil {
		t.Fatalf("takeover of a lease expired on the database's clock: %v", err)
	}
}

// testNoTakeoverWhileInFlight: a kubelet step on one host may not take over a dead runner's
// expired lease while that runner's host is still upgrading-kubelet: the dead host would be in
// flight under a lease that is not its own. It must be failed first; then the lease is free.
func testNoTakeoverWhileInFlight(t *testing.T, b Backend) {
	clock := NewClock()
	s := b.Open(t, state.WithClock(clock.Now))
	ctx := t.Context()
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradedSecondMaster)
	idle, kubelet := state.HostIdle, state.UpgradingKubelet
	start := func(owner, host string, from state.State) error {
		_, err := s.Apply(ctx, state.Start("c1", state.ActorRunner, from, state.UpgradingKubelets,
			state.LeaseSpec{Owner: owner, Operation: "kubelets@" + host, TTL: 30 * time.Second}, state.OnHost(host, idle, kubelet)))
		return err
	}
	if err := start("dead", "controller-0", state.UpgradedSecondMaster); err != nil {
		t.Fatal(err)
	}
	clock.Add(time.Minute) // the dead runner's lease expired
	wantErr(t, "take over while controller-0 is still upgrading-kubelet", start("b", "controller-1", state.UpgradingKubelets), state.ErrConflict)
	if _, err := s.Apply(ctx, state.Fail("c1", state.ActorRecover, state.UpgradingKubelets, state.UpgradingKubelets, state.NotLive(),
		state.OnHost("controller-0", kubelet, state.UpgradingKubeletFailed))); err != nil {
		t.Fatalf("fail the dead host: %v", err)
	}
	if err := start("b", "controller-1", state.UpgradingKubelets); err != nil {
		t.Fatalf("start once nothing else is in flight: %v", err)
	}
}

// testSkewedMachines: a runner and a watcher on machines whose clocks are a minute apart share
// one database. The watcher, a minute ahead, still sees the runner's fresh lease as live, and the
// runner, a minute behind, still sees an expired one as expired: both judge on the database's
// clock.
func testSkewedMachines(t *testing.T, b Backend) {
	ahead := func() time.Time { return time.Now().Add(time.Minute) }
	behind := func() time.Time { return time.Now().Add(-time.Minute) }
	runner := b.Open(t, state.WithWallClock(behind))
	watcher := b.Open(t, state.WithWallClock(ahead))
	ctx := t.Context()
	create(t, runner, "c1")
	walk(t, runner, "c1", state.UpgradedNetworking)
	if _, err := runner.Apply(ctx, state.Start("c1", state.ActorRunner, state.UpgradedNetworking, state.UpgradingFirstMaster,
		state.LeaseSpec{Owner: "a", Operation: "op", TTL: 30 * time.Second})); err != nil {
		t.Fatal(err)
	}
	l, err := watcher.Lease(ctx, "c1")
	if err != nil || l == nil || !l.Live(watcher.Now()) {
		t.Fatalf("the watcher a minute ahead judges a fresh 30 s lease expired: %+v, %v (its now %v)", l, err, watcher.Now())
	}
	if _, err := watcher.Apply(ctx, state.Fail("c1", state.ActorWatch, state.UpgradingFirstMaster, state.UpgradingFirstMasterFailed,
		state.NotLive())); err == nil {
		t.Fatal("the watcher a minute ahead failed a healthy operation")
	}
	if d := runner.Now().Sub(watcher.Now()); d > 5*time.Second || d < -5*time.Second {
		t.Errorf("the two stores' Now differ by %v: they must both read the database's clock", d)
	}
}
