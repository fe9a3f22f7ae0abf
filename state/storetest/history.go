package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

func testEvents(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	create(t, s, "a")
	create(t, s, "b")
	path := []state.State{state.UpgradeStarted, state.DownloadingImages, state.DownloadedImages, state.UpgradingNetworking}
	lease := state.LeaseSpec{Owner: "o", Operation: "test", TTL: time.Minute}
	for _, c := range []state.Change{
		state.Start("a", state.ActorRunner, path[0], path[1], lease),
		state.Finish("a", state.ActorRunner, path[1], path[2], "o", state.ReleaseLease()),
		state.Start("a", state.ActorRunner, path[2], path[3], lease),
	} {
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
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
	if all, _ := s.Events(ctx, state.AllClusters, 0); len(all) != len(path)+1 {
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
	walk(t, s, "c1", state.UpgradingKubelets)
	for _, c := range []state.Change{
		state.Start("c1", state.ActorRunner, state.UpgradingKubelets, state.UpgradingKubelets,
			state.LeaseSpec{Owner: "r", Operation: "kubelets@worker-1", TTL: time.Minute},
			state.OnHost("worker-1", state.HostIdle, state.UpgradingKubelet)),
		state.Fail("c1", state.ActorRunner, state.UpgradingKubelets, state.UpgradingKubelets, state.HeldBy("r"),
			state.OnHost("worker-1", state.UpgradingKubelet, state.UpgradingKubeletFailed), state.Because("kubelet did not restart")),
	} {
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

// testEventHops: every event of an upgrade with hops names the hop the upgrade is at once its
// change is made (the next-hop event the hop it enters); a one-hop upgrade's events name none.
func testEventHops(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	createHops(t, s, "h")
	walk(t, s, "h", state.UpgradedSecondMaster)
	if _, err := s.Apply(ctx, state.NextHop("h", state.ActorRunner, state.UpgradedSecondMaster, 0)); err != nil {
		t.Fatal(err)
	}
	if err := s.AddEvent(ctx, state.Event{Cluster: "h", Hostname: state.WholeCluster, Actor: state.ActorCLI, Reason: "note"}); err != nil {
		t.Fatal(err)
	}
	es, err := s.Events(ctx, "h", 0)
	if err != nil || len(es) < 4 {
		t.Fatalf("Events(h) = %d events, %v", len(es), err)
	}
	first, second := "hop 1 of 2 (v1.30.2)", "hop 2 of 2 (v1.31.2)"
	if oldest := es[len(es)-1]; oldest.ToState != state.UpgradeStarted || oldest.Hop != first {
		t.Errorf("the start's event names %q, want %q", oldest.Hop, first)
	}
	if es[0].Reason != "note" || es[0].Hop != second || es[1].ToState != state.UpgradeStarted || es[1].Hop != second {
		t.Errorf("the next-hop event and the note after it name %q and %q, want %q", es[1].Hop, es[0].Hop, second)
	}
	for _, e := range es[2 : len(es)-1] {
		if e.Hop != first {
			t.Errorf("event to %s names %q, want %q", e.ToState, e.Hop, first)
		}
	}
	create(t, s, "one")
	if es, _ := s.Events(ctx, "one", 0); len(es) != 1 || es[0].Hop != "" {
		t.Errorf("a one-hop upgrade's event names a hop: %+v", es)
	}
}
