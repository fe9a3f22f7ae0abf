package storetest

import (
	"context"
	"fmt"
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
	_, err = s.Apply(ctx, state.Change{Cluster: "nope", From: state.UpgradeStarted, To: state.DownloadingImages})
	wantErr(t, "Apply on a cluster with no upgrade", err, state.ErrNotFound)
	_, err = s.CreateUpgrade(ctx, state.NewUpgrade{Cluster: "c2", FromVersion: "1.29", ToVersion: "v1.30.2"})
	wantErr(t, "CreateUpgrade with a bad version", err, state.ErrBadInput)
}

// testEveryStep runs every step of state.Steps() from each of its From states: start (taking the
// lease), succeed (releasing it), and for an in-flight step also fail through the one path.
func testEveryStep(t *testing.T, b Backend) {
	ctx := t.Context()
	s := b.Open(t)
	n := 0
	for _, st := range state.Steps() {
		for _, from := range st.From {
			n++
			cluster := fmt.Sprintf("c%d", n)
			create(t, s, cluster)
			if from != state.UpgradeStarted {
				move(t, s, cluster, state.UpgradeStarted, from)
			}
			if err := state.CheckStep(mustUpgrade(t, s, cluster), st); err != nil {
				t.Fatalf("%s from %s: CheckStep: %v", st.Name, from, err)
			}
			done := from
			if st.Running != "" {
				lease := &state.LeaseSpec{Owner: "op-" + cluster, Operation: st.Name, TTL: time.Minute}
				u, err := s.Apply(ctx, state.Change{Cluster: cluster, Actor: state.ActorRunner, From: from, To: st.Running, AcquireLease: lease})
				if err != nil || u.State != st.Running {
					t.Fatalf("%s from %s: start: %+v, %v", st.Name, from, u, err)
				}
				if l, err := s.Lease(ctx, cluster); err != nil || l == nil || l.Owner != lease.Owner {
					t.Fatalf("%s: lease after start = %+v, %v", st.Name, l, err)
				}
				done = st.Running
			}
			u, err := s.Apply(ctx, state.Change{Cluster: cluster, Actor: state.ActorRunner, From: done, To: st.Done,
				LeaseOwner: "op-" + cluster, ReleaseLease: true, AllHostsTo: status(state.HostIdle)})
			if err != nil || u.State != st.Done || mustUpgrade(t, s, cluster).State != st.Done {
				t.Fatalf("%s from %s: finish: %+v, %v", st.Name, from, u, err)
			}
			if l, _ := s.Lease(ctx, cluster); l != nil {
				t.Fatalf("%s: lease still held after finishing: %+v", st.Name, l)
			}
			if twin, ok := st.Running.FailedTwin(); ok {
				failStep(t, s, cluster, st, twin)
			}
		}
	}
}

// failStep re-enters st.Running from its Done state and fails it the one way of STATES.md.
func failStep(t *testing.T, s state.Store, cluster string, st state.Step, twin state.State) {
	t.Helper()
	ctx := t.Context()
	move(t, s, cluster, st.Done, st.Running)
	_, err := s.Apply(ctx, state.Change{Cluster: cluster, Host: "controller-0", From: st.Done, To: st.Running,
		HostFrom: status(state.HostIdle), HostTo: status(state.UpgradingControlPlane)})
	wantErr(t, "start from a state it already left", err, state.ErrConflict)
	u, err := s.Apply(ctx, state.Change{Cluster: cluster, Actor: state.ActorWatch, Reason: "lease expired",
		From: st.Running, To: twin, Host: "controller-0", HostTo: status(state.HostIdle), ReleaseLease: true,
		Evidence: []byte(`{"class":"nothing changed"}`)})
	if err != nil || u.State != twin {
		t.Fatalf("%s: fail: %+v, %v", st.Name, u, err)
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
	move(t, s, "c1", state.UpgradeStarted, state.UpgradedNetworking)
	holder := &state.LeaseSpec{Owner: "holder", Operation: "networking", TTL: time.Minute}
	if _, err := s.Apply(ctx, state.Change{Cluster: "c1", From: state.UpgradedNetworking, To: state.UpgradedNetworking, AcquireLease: holder}); err != nil {
		t.Fatal(err)
	}
	clock.Add(time.Second)
	cases := []struct {
		name string
		c    state.Change
	}{
		{"wrong state", state.Change{From: state.UpgradedStorage, To: state.UpgradingFirstMaster}},
		{"wrong host status", state.Change{From: state.UpgradedNetworking, To: state.UpgradingFirstMaster, Host: "controller-0",
			HostFrom: status(state.UpgradingControlPlane), HostTo: status(state.HostIdle)}},
		{"lease of another owner", state.Change{From: state.UpgradedNetworking, To: state.UpgradingFirstMaster, LeaseOwner: "me"}},
		{"live lease", state.Change{From: state.UpgradedNetworking, To: state.UpgradingFirstMaster, LeaseNotLive: true}},
		{"acquire over a live lease", state.Change{From: state.UpgradedNetworking, To: state.UpgradingFirstMaster,
			AcquireLease: &state.LeaseSpec{Owner: "me", Operation: "control-plane@controller-0", TTL: time.Minute}}},
	}
	before := mustUpgrade(t, s, "c1")
	events := countEvents(t, s, "c1")
	for _, tc := range cases {
		tc.c.Cluster, tc.c.Actor, tc.c.Target = "c1", state.ActorCLI, "v1.30.2"
		tc.c.ReleaseLease, tc.c.IncRecoveryAttempts = true, true
		_, err := s.Apply(ctx, tc.c)
		wantErr(t, tc.name, err, state.ErrConflict)
		after := mustUpgrade(t, s, "c1")
		if after != before {
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
	move(t, s, "c1", state.UpgradeStarted, state.UpgradedNetworking)
	start := state.Change{Cluster: "c1", Actor: state.ActorRunner, From: state.UpgradedNetworking, To: state.UpgradingFirstMaster,
		Host: "controller-0", HostFrom: status(state.HostIdle), HostTo: status(state.UpgradingControlPlane), Target: "v1.30.2"}
	if _, err := s.Apply(ctx, start); err != nil {
		t.Fatal(err)
	}
	h := mustHost(t, s, "c1", "controller-0")
	if h.Status != state.UpgradingControlPlane || h.TargetVersion != "v1.30.2" {
		t.Fatalf("host after start: %+v", h)
	}
	// Host-only change with the wrong expected status, state unchanged.
	_, err := s.Apply(ctx, state.Change{Cluster: "c1", From: state.UpgradingFirstMaster, To: state.UpgradingFirstMaster,
		Host: "controller-0", HostFrom: status(state.HostIdle), HostTo: status(state.UpgradedKubelet)})
	wantErr(t, "host CAS on the wrong status", err, state.ErrConflict)
	_, err = s.Apply(ctx, state.Change{Cluster: "c1", From: state.UpgradingFirstMaster, Host: "nohost", HostTo: status(state.HostIdle)})
	wantErr(t, "change of an unknown host", err, state.ErrNotFound)
	// An operator clears the status by hand with '' rather than NULL: still idle.
	b.Exec(t, "UPDATE kube_host_upgrade SET status = '' WHERE status = 'upgrading-control-plane'")
	if h := mustHost(t, s, "c1", "controller-0"); h.Status != state.HostIdle {
		t.Fatalf("status '' read as %q, want idle", h.Status)
	}
	if _, err := s.Apply(ctx, state.Change{Cluster: "c1", From: state.UpgradingFirstMaster, Host: "controller-0",
		HostFrom: status(state.HostIdle), HostTo: status(state.UpgradingControlPlane)}); err != nil {
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
	entered := move(t, s, "c1", state.UpgradeStarted, state.UpgradingKubelets).StateEnteredAt
	clock.Add(time.Minute)
	if _, err := s.Apply(t.Context(), state.Change{Cluster: "c1", From: state.UpgradingKubelets, To: state.UpgradingKubelets,
		Host: "worker-0", HostTo: status(state.UpgradingKubelet)}); err != nil {
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
	move(t, s, "c1", state.UpgradeStarted, state.UpgradeComplete)
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
	if len(es) != 3 || es[0].UpgradeUUID != u.UUID || es[0].FromState != state.UpgradeComplete {
		t.Fatalf("history after delete: %+v", es)
	}
	if u2 := create(t, s, "c1"); u2.UUID == u.UUID {
		t.Fatal("a new upgrade after delete reused the old uuid")
	}
	if h := mustHost(t, s, "c1", "worker-0"); h.Status != state.HostIdle || h.KubeletVersion != "v1.29.4" {
		t.Fatalf("host after delete and a new start: %+v", h)
	}
}

func testEvents(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	create(t, s, "a")
	create(t, s, "b")
	path := []state.State{state.UpgradeStarted, state.DownloadingImages, state.DownloadedImages, state.UpgradingNetworking}
	for i := 1; i < len(path); i++ {
		move(t, s, "a", path[i-1], path[i])
	}
	es, err := s.Events(ctx, "a", 0)
	if err != nil || len(es) != len(path) {
		t.Fatalf("Events(a) = %d events, %v; want %d", len(es), err, len(path))
	}
	for i, e := range es {
		if want := path[len(path)-1-i]; e.ToState != want || e.Cluster != "a" {
			t.Errorf("event %d: to %s (cluster %s), want %s newest first", i, e.ToState, e.Cluster, want)
		}
		if i > 0 && e.ID >= es[i-1].ID {
			t.Errorf("event ids not descending: %d after %d", e.ID, es[i-1].ID)
		}
	}
	if es, _ := s.Events(ctx, "a", 2); len(es) != 2 || es[0].ToState != state.UpgradingNetworking {
		t.Fatalf("Events(a, 2) = %+v", es)
	}
	if all, _ := s.Events(ctx, "", 0); len(all) != len(path)+1 {
		t.Fatalf("Events(all) = %d, want %d", len(all), len(path)+1)
	}
}

func testVersions(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := context.Background()
	create(t, s, "c1")
	at := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.FixedZone("far", 14*3600))
	if err := s.SetVersions(ctx, "c1", "controller-1", "v1.30.2", "", at); err != nil {
		t.Fatal(err)
	}
	h := mustHost(t, s, "c1", "controller-1")
	if h.ControlPlaneVersion != "v1.30.2" || h.KubeletVersion != "v1.29.4" || h.VersionsReadAt == nil || !h.VersionsReadAt.Equal(at) {
		t.Fatalf("host after SetVersions: %+v (read at %v)", h, h.VersionsReadAt)
	}
	wantErr(t, "SetVersions of an unknown host", s.SetVersions(ctx, "c1", "nohost", "v1.30.2", "", at), state.ErrNotFound)
	move(t, s, "c1", state.UpgradeStarted, state.UpgradingKubelets)
	for _, c := range []state.Change{
		{HostFrom: status(state.HostIdle), HostTo: status(state.UpgradingKubelet)},
		{HostFrom: status(state.UpgradingKubelet), HostTo: status(state.HostIdle), Reason: "kubelet did not restart"},
	} {
		c.Cluster, c.From, c.Host, c.Actor = "c1", state.UpgradingKubelets, "worker-1", state.ActorRunner
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if h := mustHost(t, s, "c1", "worker-1"); h.LastFailure != "kubelet did not restart" {
		t.Fatalf("last failure of worker-1 = %q", h.LastFailure)
	}
	if h := mustHost(t, s, "c1", "worker-0"); h.LastFailure != "" {
		t.Fatalf("last failure of worker-0 = %q, want none", h.LastFailure)
	}
}
