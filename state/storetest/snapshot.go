package storetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

// testSnapshots: a snapshot is recorded only while its upgrade's first controller's
// control-plane step of its hop runs (compare-and-set on uuid, hop and state), with an event
// naming where it is (the runner's copy, its machine and the controller's file); a record that could not be restored from is refused; the list is newest
// first and per cluster.
func testSnapshots(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	u := create(t, s, "c1")
	create(t, s, "c2")
	snap := state.EtcdSnapshot{Cluster: "c1", UpgradeUUID: u.UUID, Hostname: "controller-0", Path: "/var/lib/kupgrade/etcd/c1/a.db",
		SHA256: strings.Repeat("ab", 32), Revision: 42, Hash: 7, Size: 4096}
	if _, err := s.AddSnapshot(ctx, snap, state.ActorRunner); !errors.Is(err, state.ErrConflict) {
		t.Fatalf("AddSnapshot in upgrade-started: %v, want a conflict", err)
	}
	walk(t, s, "c1", state.UpgradedNetworking)
	first, _ := state.StepNamed(state.StepFirstMaster)
	start(t, s, "c1", first, state.UpgradedNetworking, "o")
	bad := snap
	bad.SHA256 = "not-a-checksum"
	if _, err := s.AddSnapshot(ctx, bad, state.ActorRunner); !errors.Is(err, state.ErrBadInput) {
		t.Fatalf("AddSnapshot of a bad checksum: %v, want bad input", err)
	}
	stale := snap
	stale.Hop = 1
	if _, err := s.AddSnapshot(ctx, stale, state.ActorRunner); !errors.Is(err, state.ErrConflict) {
		t.Fatalf("AddSnapshot for another hop: %v, want a conflict", err)
	}
	got, err := s.AddSnapshot(ctx, snap, state.ActorRunner)
	if err != nil || got.ID == 0 || got.CreatedAt.IsZero() {
		t.Fatalf("AddSnapshot: %+v, %v", got, err)
	}
	snap.Path, snap.RunnerHost, snap.ControllerPath = "/var/lib/kupgrade/etcd/c1/b.db", "jump-1", "/var/lib/etcd/kupgrade-snapshot.db"
	if _, err := s.AddSnapshot(ctx, snap, state.ActorRunner); err != nil {
		t.Fatal(err)
	}
	list, err := s.Snapshots(ctx, "c1")
	if err != nil || len(list) != 2 || list[0].Path != snap.Path || list[1].Revision != 42 || list[1].SHA256 != snap.SHA256 {
		t.Fatalf("Snapshots(c1) = %+v, %v; want b.db then a.db", list, err)
	}
	if list[0].RunnerHost != "jump-1" || list[0].ControllerPath != snap.ControllerPath || list[1].RunnerHost != "" || list[1].ControllerPath != "" {
		t.Errorf("Snapshots(c1) places = %+v; want b.db's runner and controller paths kept, a.db's empty", list)
	}
	if sn, ok := state.SnapshotFor(list, u.UUID, 0); !ok || sn.Path != snap.Path {
		t.Errorf("SnapshotFor(hop 0) = %+v, %v; want the newest", sn, ok)
	}
	if other, err := s.Snapshots(ctx, "c2"); err != nil || len(other) != 0 {
		t.Errorf("Snapshots(c2) = %+v, %v; want none", other, err)
	}
	es, err := s.Events(ctx, "c1", 1)
	if err != nil || len(es) != 1 || !strings.Contains(es[0].Reason, "b.db") || es[0].ToState != state.UpgradingFirstMaster {
		t.Errorf("newest event = %+v, %v; want the snapshot's, naming its path", es, err)
	}
}
