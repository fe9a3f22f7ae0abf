package storetest

import (
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

func testLeases(t *testing.T, b Backend) {
	clock := NewClock()
	s := b.Open(t, state.WithClock(clock.Now))
	ctx := t.Context()
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradedNetworking)
	lease := func(owner string) state.LeaseSpec {
		return state.LeaseSpec{Owner: owner, Operation: "control-plane@controller-0", TTL: 30 * time.Second}
	}
	take := func(owner string) error {
		_, err := s.Apply(ctx, state.TakeOver("c1", state.ActorRunner, state.UpgradingFirstMaster, lease(owner)))
		return err
	}
	if _, err := s.Apply(ctx, state.Start("c1", state.ActorRunner, state.UpgradedNetworking, state.UpgradingFirstMaster, lease("a"))); err != nil {
		t.Fatal(err)
	}
	l, err := s.Lease(ctx, "c1")
	if err != nil || l == nil || l.Owner != "a" || !l.ExpiresAt.Equal(clock.Now().Add(30*time.Second)) || !l.Live(s.Now()) {
		t.Fatalf("lease after acquire: %+v, %v", l, err)
	}
	wantErr(t, "acquire over a live lease", take("b"), state.ErrConflict)

	clock.Add(20 * time.Second)
	renewed, err := s.RenewLease(ctx, "c1", "a", 30*time.Second)
	if err != nil || !renewed.ExpiresAt.Equal(clock.Now().Add(30*time.Second)) || renewed.Operation != "control-plane@controller-0" {
		t.Fatalf("renew by the owner: %+v, %v", renewed, err)
	}
	_, err = s.RenewLease(ctx, "c1", "b", 30*time.Second)
	wantErr(t, "renew by another owner", err, state.ErrConflict)

	clock.Add(31 * time.Second) // a's lease has expired: b may take it over.
	if l, _ := s.Lease(ctx, "c1"); l == nil || l.Live(s.Now()) {
		t.Fatalf("lease should be there and expired: %+v", l)
	}
	if err := take("b"); err != nil {
		t.Fatalf("take over an expired lease: %v", err)
	}
	_, err = s.RenewLease(ctx, "c1", "a", 30*time.Second)
	wantErr(t, "renew by the owner that lost it", err, state.ErrConflict)
	if _, err := s.Apply(ctx, state.Finish("c1", state.ActorRunner, state.UpgradingFirstMaster, state.UpgradedFirstMaster,
		"a", state.ReleaseLease())); err == nil {
		t.Fatal("release by the former owner: want ErrConflict")
	}
	if _, err := s.Apply(ctx, state.Finish("c1", state.ActorRunner, state.UpgradingFirstMaster, state.UpgradedFirstMaster,
		"b", state.ReleaseLease())); err != nil {
		t.Fatalf("release by the owner: %v", err)
	}
	if l, err := s.Lease(ctx, "c1"); l != nil || err != nil {
		t.Fatalf("lease after release: %+v, %v", l, err)
	}
	_, err = s.RenewLease(ctx, "c1", "b", 30*time.Second)
	wantErr(t, "renew after release", err, state.ErrConflict)
}

func testInFlight(t *testing.T, b Backend) {
	clock := NewClock()
	s := b.Open(t, state.WithClock(clock.Now))
	ctx := t.Context()
	for _, c := range []string{"a-cp", "b-kubelet", "c-kubelets-done", "d-idle", "e-nolease"} {
		create(t, s, c)
	}
	walk(t, s, "a-cp", state.UpgradedNetworking)
	if _, err := s.Apply(ctx, state.Start("a-cp", state.ActorRunner, state.UpgradedNetworking, state.UpgradingFirstMaster,
		state.LeaseSpec{Owner: "o1", Operation: "control-plane@controller-0", TTL: time.Minute},
		state.OnHost("controller-0", state.HostIdle, state.UpgradingControlPlane))); err != nil {
		t.Fatal(err)
	}
	walk(t, s, "b-kubelet", state.UpgradingKubelets)
	if _, err := s.Apply(ctx, state.Start("b-kubelet", state.ActorRunner, state.UpgradingKubelets, state.UpgradingKubelets,
		state.LeaseSpec{Owner: "o2", Operation: "kubelet@worker-1", TTL: time.Minute},
		state.OnHost("worker-1", state.HostIdle, state.UpgradingKubelet))); err != nil {
		t.Fatal(err)
	}
	walk(t, s, "c-kubelets-done", state.UpgradingKubelets)
	for _, h := range twoControllers {
		if _, err := s.Apply(ctx, state.MarkKubelet("c-kubelets-done", state.ActorRunner, state.UpgradingKubelets,
			h.Hostname, state.HostIdle, "v1.30.2", 0)); err != nil {
			t.Fatal(err)
		}
	}
	walk(t, s, "d-idle", state.UpgradedNetworking)
	walk(t, s, "e-nolease", state.DownloadingImages)
	b.Exec(t, "DELETE FROM upgrade_lease WHERE cluster = 'e-nolease'") // its runner's lease, removed by hand

	ops, bad, err := s.InFlight(ctx)
	if err != nil || len(bad) != 0 {
		t.Fatal(bad, err)
	}
	want := []struct {
		cluster, owner, host string
		state                state.State
	}{
		{"a-cp", "o1", "controller-0", state.UpgradingFirstMaster},
		{"b-kubelet", "o2", "worker-1", state.UpgradingKubelets},
		{"e-nolease", "", "", state.DownloadingImages},
	}
	if len(ops) != len(want) {
		t.Fatalf("InFlight = %d ops %+v, want %d", len(ops), ops, len(want))
	}
	for i, w := range want {
		op := ops[i]
		if op.Upgrade.Cluster != w.cluster || op.Upgrade.State != w.state {
			t.Errorf("op %d = %s in %s, want %s in %s", i, op.Upgrade.Cluster, op.Upgrade.State, w.cluster, w.state)
		}
		if (op.Lease == nil) != (w.owner == "") || (op.Lease != nil && (op.Lease.Owner != w.owner || !op.Lease.Live(clock.Now()))) {
			t.Errorf("op %s: lease %+v, want owner %q", w.cluster, op.Lease, w.owner)
		}
		if (len(op.Hosts) == 1) != (w.host != "") || (w.host != "" && op.Hosts[0].Hostname != w.host) {
			t.Errorf("op %s: hosts %+v, want %q", w.cluster, op.Hosts, w.host)
		}
	}
}

func testAuditLock(t *testing.T, b Backend) {
	ctx := t.Context()
	s1, s2 := b.Open(t), b.Open(t)
	hold1, err := s1.AuditLock(ctx)
	if err != nil || hold1 == nil {
		t.Fatalf("first AuditLock: %v, %v", hold1, err)
	}
	if hold, err := s2.AuditLock(ctx); err != nil || hold != nil {
		t.Fatalf("second store's AuditLock while the first holds it: %v, %v; want nil", hold, err)
	}
	hold1.Release()
	hold1.Release() // releasing twice is harmless
	select {
	case <-hold1.Lost:
		t.Fatalf("a released lock reports itself lost")
	default:
	}
	hold2, err := s2.AuditLock(ctx)
	if err != nil || hold2 == nil {
		t.Fatalf("AuditLock after release: %v, %v", hold2, err)
	}
	hold2.Release()
}
