package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

func testCreate(t *testing.T, b Backend) {
	ctx := t.Context()
	s := b.Open(t)
	if _, err := s.Upgrade(ctx, "c1"); err == nil {
		t.Fatal("Upgrade of an empty database: want ErrNotFound, got nil")
	} else {
		wantErr(t, "Upgrade before create", err, state.ErrNotFound)
	}
	u := create(t, s, "c1")
	if u.State != state.UpgradeStarted || u.UUID == "" || u.ToVersion != "v1.30.2" {
		t.Fatalf("created %+v", u)
	}
	got := mustUpgrade(t, s, "c1")
	if got.UUID != u.UUID || got.State != state.UpgradeStarted || !got.StateEnteredAt.Equal(u.StateEnteredAt) {
		t.Fatalf("read back %+v, created %+v", got, u)
	}
	hs, err := s.Hosts(ctx, "c1")
	if err != nil || len(hs) != len(twoControllers) {
		t.Fatalf("Hosts = %v, %v; want %d hosts", hs, err, len(twoControllers))
	}
	for i, h := range hs {
		if h.Hostname != twoControllers[i].Hostname || h.Status != state.HostIdle || h.Personality != twoControllers[i].Personality {
			t.Errorf("host %d = %+v, want %s idle", i, h, twoControllers[i].Hostname)
		}
	}
	_, err = s.CreateUpgrade(ctx, state.NewUpgrade{Cluster: "c1", FromVersion: "v1.29.4", ToVersion: "v1.30.2", Actor: state.ActorCLI})
	wantErr(t, "second CreateUpgrade", err, state.ErrRefused)
	if n := countEvents(t, s, "c1"); n != 1 {
		t.Fatalf("events after a refused second create: %d, want 1", n)
	}
	_, err = s.Apply(ctx, state.Start("nope", state.ActorRunner, state.UpgradeStarted, state.DownloadingImages,
		state.LeaseSpec{Owner: "o", Operation: "download-images", TTL: time.Minute}))
	wantErr(t, "Apply on a cluster with no upgrade", err, state.ErrNotFound)
	_, err = s.Apply(ctx, state.Change{})
	wantErr(t, "Apply of the zero Change", err, state.ErrBadInput)
	_, err = s.Apply(ctx, state.Start("c1", state.ActorRunner, state.UpgradeStarted, state.UpgradingFirstMaster,
		state.LeaseSpec{Owner: "o", Operation: "first-master", TTL: time.Minute}))
	wantErr(t, "Apply of a start no step makes", err, state.ErrBadInput)
	if n := countEvents(t, s, "c1"); n != 1 {
		t.Fatalf("events after refused changes: %d, want 1", n)
	}
	_, err = s.CreateUpgrade(ctx, state.NewUpgrade{Cluster: "c2", FromVersion: "1.29", ToVersion: "v1.30.2"})
	wantErr(t, "CreateUpgrade with a bad version", err, state.ErrBadInput)
}

// testEveryStep runs every step of state.Steps() from each of its From states: start (taking the
// lease), for an in-flight step fail through the one path and retry from the failed twin, and
// succeed (releasing the lease).
func testEveryStep(t *testing.T, b Backend) {
	ctx := t.Context()
	s := b.Open(t)
	n := 0
	for _, st := range state.Steps() {
		for _, from := range st.From {
			n++
			cluster := fmt.Sprintf("c%d", n)
			if st.Name == state.StepNextHop {
				createHops(t, s, cluster)
				walk(t, s, cluster, from)
				testNextHop(t, s, cluster, from)
				continue
			}
			create(t, s, cluster)
			walk(t, s, cluster, from)
			if err := state.CheckStep(mustUpgrade(t, s, cluster), st); err != nil {
				t.Fatalf("%s from %s: CheckStep: %v", st.Name, from, err)
			}
			owner := "op-" + cluster
			start(t, s, cluster, st, from, owner)
			if twin, ok := st.Running.FailedTwin(); ok {
				failStep(t, s, cluster, st, twin, owner)
				start(t, s, cluster, st, twin, owner)
			}
			u, err := s.Apply(ctx, state.Finish(cluster, state.ActorRunner, st.Running, st.Done, owner, state.ReleaseLease()))
			if err != nil || u.State != st.Done || mustUpgrade(t, s, cluster).State != st.Done {
				t.Fatalf("%s from %s: finish: %+v, %v", st.Name, from, u, err)
			}
			if l, _ := s.Lease(ctx, cluster); l != nil {
				t.Fatalf("%s: lease still held after finishing: %+v", st.Name, l)
			}
			if from != st.Done {
				_, err = s.Apply(ctx, state.Start(cluster, state.ActorRunner, from, st.Running, state.LeaseSpec{Owner: owner, TTL: time.Minute}))
				wantErr(t, "start from a state it already left", err, state.ErrConflict)
			}
		}
	}
}

// start starts st from from under owner's lease.
func start(t *testing.T, s state.Store, cluster string, st state.Step, from state.State, owner string) {
	t.Helper()
	lease := state.LeaseSpec{Owner: owner, Operation: st.Name, TTL: time.Minute}
	u, err := s.Apply(t.Context(), state.Start(cluster, state.ActorRunner, from, st.Running, lease))
	if err != nil || u.State != st.Running {
		t.Fatalf("%s from %s: start: %+v, %v", st.Name, from, u, err)
	}
	if l, err := s.Lease(t.Context(), cluster); err != nil || l == nil || l.Owner != owner {
		t.Fatalf("%s: lease after start = %+v, %v", st.Name, l, err)
	}
}

// failStep fails the running st the one way of docs/states.md, releasing the lease.
func failStep(t *testing.T, s state.Store, cluster string, st state.Step, twin state.State, owner string) {
	t.Helper()
	u, err := s.Apply(t.Context(), state.Fail(cluster, state.ActorRunner, st.Running, twin, state.HeldBy(owner),
		state.Because("kubeadm failed"), state.WithEvidence([]byte(`{"class":"nothing changed"}`))))
	if err != nil || u.State != twin {
		t.Fatalf("%s: fail: %+v, %v", st.Name, u, err)
	}
	if l, _ := s.Lease(t.Context(), cluster); l != nil {
		t.Fatalf("%s: lease still held after failing: %+v", st.Name, l)
	}
	if !st.Allows(twin) {
		t.Fatalf("%s: its failed twin %s is not one of its From states: no retry possible", st.Name, twin)
	}
}

func testConflictWritesNothing(t *testing.T, b Backend) {
	clock := NewClock()
	s := b.Open(t, state.WithClock(clock.Now))
	ctx := t.Context()
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradedNetworking)
	holder := state.LeaseSpec{Owner: "holder", Operation: "storage", TTL: time.Minute}
	if _, err := s.Apply(ctx, state.Start("c1", state.ActorRunner, state.UpgradedNetworking, state.UpgradingStorage, holder)); err != nil {
		t.Fatal(err)
	}
	clock.Add(time.Second)
	const c, cli, target = "c1", state.ActorCLI, "v1.30.2"
	me := state.LeaseSpec{Owner: "me", Operation: "control-plane@controller-0", TTL: time.Minute}
	host := state.OnHost("controller-0", state.HostIdle, state.UpgradingControlPlane)
	cases := []struct {
		name string
		c    state.Change
	}{
		{"wrong state", state.Start(c, cli, state.UpgradedStorage, state.UpgradingFirstMaster, me, host, state.WithTarget(target))},
		{"wrong host status", state.StartHost(c, cli, state.UpgradingStorage, "holder",
			state.OnHost("controller-0", state.UpgradingControlPlane, state.HostIdle), state.WithTarget(target))},
		{"lease of another owner", state.Finish(c, cli, state.UpgradingStorage, state.UpgradedStorage, "me", state.ReleaseLease())},
		{"live lease", state.Fail(c, cli, state.UpgradingStorage, state.UpgradingStorageFailed, state.NotLive(), state.CountRecovery(),
			state.OnHost("controller-0", state.HostIdle, state.HostIdle), state.WithTarget(target))},
		{"acquire over a live lease", state.TakeOver(c, cli, state.UpgradingStorage, me)},
	}
	before := mustUpgrade(t, s, "c1")
	events := countEvents(t, s, "c1")
	for _, tc := range cases {
		_, err := s.Apply(ctx, tc.c)
		wantErr(t, tc.name, err, state.ErrConflict)
		after := mustUpgrade(t, s, "c1")
		if !reflect.DeepEqual(after, before) {
			t.Errorf("%s: upgrade changed by a conflict: %+v -> %+v", tc.name, before, after)
		}
		if n := countEvents(t, s, "c1"); n != events {
			t.Errorf("%s: %d events after a conflict, want %d", tc.name, n, events)
		}
		if h := mustHost(t, s, "c1", "controller-0"); h.Status != state.HostIdle || h.TargetVersion != "" {
			t.Errorf("%s: host changed by a conflict: %+v", tc.name, h)
		}
		if l, _ := s.Lease(ctx, "c1"); l == nil || l.Owner != "holder" {
			t.Errorf("%s: lease changed by a conflict: %+v", tc.name, l)
		}
	}
}

func testHostStatusCAS(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradedNetworking)
	start := state.Start("c1", state.ActorRunner, state.UpgradedNetworking, state.UpgradingFirstMaster,
		state.LeaseSpec{Owner: "o", Operation: "control-plane@controller-0", TTL: time.Minute},
		state.OnHost("controller-0", state.HostIdle, state.UpgradingControlPlane), state.WithTarget("v1.30.2"))
	if _, err := s.Apply(ctx, start); err != nil {
		t.Fatal(err)
	}
	h := mustHost(t, s, "c1", "controller-0")
	if h.Status != state.UpgradingControlPlane || h.TargetVersion != "v1.30.2" {
		t.Fatalf("host after start: %+v", h)
	}
	// Host-only change with the wrong expected status, state unchanged.
	_, err := s.Apply(ctx, state.HostOnly("c1", state.ActorCLI, state.UpgradingFirstMaster, state.HeldBy("o"),
		state.OnHost("controller-0", state.HostIdle, state.UpgradedKubelet)))
	wantErr(t, "host CAS on the wrong status", err, state.ErrConflict)
	_, err = s.Apply(ctx, state.HostOnly("c1", state.ActorCLI, state.UpgradingFirstMaster, state.HeldBy("o"),
		state.OnHost("nohost", state.HostIdle, state.HostIdle)))
	wantErr(t, "change of an unknown host", err, state.ErrNotFound)
	// An operator clears the status by hand with '' rather than NULL: still idle.
	b.Exec(t, "UPDATE kube_host_upgrade SET status = '' WHERE status = 'upgrading-control-plane'")
	if h := mustHost(t, s, "c1", "controller-0"); h.Status != state.HostIdle {
		t.Fatalf("status '' read as %q, want idle", h.Status)
	}
	if _, err := s.Apply(ctx, state.HostOnly("c1", state.ActorCLI, state.UpgradingFirstMaster, state.HeldBy("o"),
		state.OnHost("controller-0", state.HostIdle, state.UpgradingControlPlane))); err != nil {
		t.Fatalf("CAS from a hand-cleared status: %v", err)
	}
	es, _ := s.Events(ctx, "c1", 1)
	if len(es) != 1 || es[0].FromHostStatus != state.HostIdle || es[0].ToHostStatus != state.UpgradingControlPlane || es[0].Hostname != "controller-0" {
		t.Fatalf("event of a host change: %+v", es)
	}
}

func testStateEnteredAt(t *testing.T, b Backend) {
	clock := NewClock()
	s := b.Open(t, state.WithClock(clock.Now))
	create(t, s, "c1")
	clock.Add(time.Minute)
	entered := walk(t, s, "c1", state.UpgradingKubelets).StateEnteredAt
	clock.Add(time.Minute)
	if _, err := s.Apply(t.Context(), state.Start("c1", state.ActorRunner, state.UpgradingKubelets, state.UpgradingKubelets,
		state.LeaseSpec{Owner: "r", Operation: "kubelets@worker-0", TTL: time.Minute},
		state.OnHost("worker-0", state.HostIdle, state.UpgradingKubelet))); err != nil {
		t.Fatal(err)
	}
	u := mustUpgrade(t, s, "c1")
	if !u.StateEnteredAt.Equal(entered) || !entered.Equal(clock.Now().Add(-time.Minute)) {
		t.Fatalf("state_entered_at = %v after a host-only change, want %v", u.StateEnteredAt, entered)
	}
	if !u.UpdatedAt.Equal(clock.Now()) {
		t.Fatalf("updated_at = %v, want %v", u.UpdatedAt, clock.Now())
	}
}

func testDelete(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	u := create(t, s, "c1")
	walk(t, s, "c1", state.UpgradeComplete)
	written := countEvents(t, s, "c1")
	err := s.DeleteUpgrade(ctx, "c1", state.UpgradeAborted, state.ActorCLI, "delete")
	wantErr(t, "delete from the wrong state", err, state.ErrConflict)
	mustUpgrade(t, s, "c1")
	if err := s.DeleteUpgrade(ctx, "c1", state.UpgradeComplete, state.ActorCLI, "delete"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Upgrade(ctx, "c1")
	wantErr(t, "Upgrade after delete", err, state.ErrNotFound)
	err = s.DeleteUpgrade(ctx, "c1", state.UpgradeComplete, state.ActorCLI, "delete")
	wantErr(t, "second delete", err, state.ErrNotFound)
	es, _ := s.Events(ctx, "c1", 0)
	if len(es) != written+1 || es[0].UpgradeUUID != u.UUID || es[0].FromState != state.UpgradeComplete {
		t.Fatalf("history after delete: %+v", es)
	}
	if u2 := create(t, s, "c1"); u2.UUID == u.UUID {
		t.Fatal("a new upgrade after delete reused the old uuid")
	}
	if h := mustHost(t, s, "c1", "worker-0"); h.Status != state.HostIdle || h.KubeletVersion != "v1.29.4" {
		t.Fatalf("host after delete and a new start: %+v", h)
	}
}

// testNextHop moves cluster's upgrade, walked to from in its first hop, to its second: back at
// upgrade-started, every host idle; the same move again, from a hop the upgrade has left, or
// beyond the last hop, is a conflict that writes nothing.
func testNextHop(t *testing.T, s state.Store, cluster string, from state.State) {
	ctx := t.Context()
	u, err := s.Apply(ctx, state.NextHop(cluster, state.ActorRunner, from, 0))
	if err != nil || u.State != state.UpgradeStarted || u.Hop != 1 || u.Target() != hopsTo[1] {
		t.Fatalf("next-hop from %s: %+v, %v", from, u, err)
	}
	for _, h := range twoControllers {
		if h := mustHost(t, s, cluster, h.Hostname); h.Status != state.HostIdle {
			t.Errorf("next-hop from %s: host %s is %s, want idle", from, h.Hostname, h.Status)
		}
	}
	walk(t, s, cluster, from)
	for _, hop := range []int{0, 1} {
		if _, err := s.Apply(ctx, state.NextHop(cluster, state.ActorRunner, from, hop)); !errors.Is(err, state.ErrConflict) {
			t.Errorf("next-hop from %s at hop %d of the last hop: %v, want a conflict", from, hop+1, err)
		}
	}
	if u := mustUpgrade(t, s, cluster); u.Hop != 1 || u.State != from {
		t.Errorf("a refused next-hop wrote: %+v", u)
	}
	testStaleMark(t, s, cluster, from)
}

// testStaleMark: a runner that read the first hop marks a kubelet already at that hop's version,
// after the upgrade moved to the second hop and back to from: a conflict that writes nothing (the
// host would be recorded upgraded at a version it left behind); the same mark at the second hop
// is written.
func testStaleMark(t *testing.T, s state.Store, cluster string, from state.State) {
	ctx := t.Context()
	name := twoControllers[len(twoControllers)-1].Hostname
	before := mustHost(t, s, cluster, name)
	_, err := s.Apply(ctx, state.MarkKubelet(cluster, state.ActorRunner, from, name, before.Status, hopsTo[0], 0))
	if !errors.Is(err, state.ErrConflict) || !strings.Contains(err.Error(), "hop") {
		t.Fatalf("mark %s at the first hop while the upgrade is at the second: %v, want a conflict naming the hop", name, err)
	}
	if h := mustHost(t, s, cluster, name); h.Status != before.Status || h.TargetVersion != before.TargetVersion {
		t.Errorf("a refused mark wrote %s: %+v, was %+v", name, h, before)
	}
	if _, err := s.Apply(ctx, state.MarkKubelet(cluster, state.ActorRunner, from, name, before.Status, hopsTo[1], 1)); err != nil {
		t.Errorf("mark %s at the second hop: %v", name, err)
	}
}
