package upgrade_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// clockStore is the fixture's store with its clock set by the test.
type clockStore struct {
	upgrade.Store
	at time.Time
}

func (s clockStore) Now() time.Time { return s.at }

// etcdAtRevision makes etcdctl endpoint status on the controllers report revision 400.
func etcdAtRevision(f *fixture) {
	f.c.results["endpoint status"] = runnertest.Result{Stdout: "### kupgrade-health revision rc=0\n" +
		`[{"Endpoint":"https://127.0.0.1:2379","Status":{"header":{"cluster_id":1,"member_id":2,"revision":400,"raft_term":3},"version":"3.6.4"}}]` + "\n"}
}

// movedCluster is a fixture whose upgrade moved controller-0's etcd from 3.5 to tag now, with
// its snapshot (revision 321) taken, every member restorable, and etcd at revision 400.
func movedCluster(t *testing.T, from, now string) (*fixture, *etcdSim) {
	f := newFixture(t)
	snapshotCluster(t, f, sumOf(snapData))
	withEtcd(t, f, from, now)
	etcdAtRevision(f)
	return f, newEtcdSim(t, f)
}

// snapshotTaken is the snapshot the fixture's upgrade took.
func snapshotTaken(t *testing.T, f *fixture) state.EtcdSnapshot {
	snaps, err := f.st.Snapshots(t.Context(), "default")
	if err != nil || len(snaps) != 1 {
		t.Fatalf("snapshots %v, %v; want one", snaps, err)
	}
	return snaps[0]
}

// nothingRestored fails unless abort left everything as it was: no play since before, no
// member restored, etcd.yaml still at tag, the upgrade still upgraded-first-master.
func nothingRestored(t *testing.T, f *fixture, sim *etcdSim, before int, tag string) {
	t.Helper()
	if got := f.c.played()[before:]; len(got) != 0 || len(sim.restored) != 0 {
		t.Errorf("after the refusal: played %v, restores %v; want nothing", got, sim.restored)
	}
	if got := f.c.snaps["controller-0"].Manifests["etcd"]; got != tag {
		t.Errorf("controller-0's etcd.yaml at %s; want it left at %s", got, tag)
	}
	f.wantState(t, state.UpgradedFirstMaster)
}

// TestPlainAbortNeverRestoresEtcd: where this upgrade moved etcd to a newer minor, a plain abort
// (no --restore-etcd) restores nothing, although the snapshot and every member would allow it:
// it refuses, naming the snapshot's time and revision, etcd's revision now, what --restore-etcd
// would discard and, for etcd 3.6 back to 3.5, etcd's own downgrade, which keeps the data.
func TestPlainAbortNeverRestoresEtcd(t *testing.T) {
	for _, c := range []struct{ from, now, downgrade string }{
		{"3.5.12-0", "3.6.4-0", "`etcdctl downgrade enable 3.5`"},
		{"3.4.13-0", "3.5.12-0", ""},
	} {
		t.Run(c.now, func(t *testing.T) {
			f, sim := movedCluster(t, c.from, c.now)
			snap := snapshotTaken(t, f)
			before := len(f.c.played())
			err := f.w.Abort(t.Context())
			if !errors.Is(err, state.ErrRefused) {
				t.Fatalf("plain abort: %v; want it refused", err)
			}
			for _, want := range []string{"moved etcd to a newer minor on controller-0", "a plain abort never restores etcd",
				"saved " + snap.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC"), "at etcd revision 321", "etcd is at revision 400 now, 79 revisions later",
				"`kupgrade upgrade abort --restore-etcd` would put etcd back", "discards every API write made since it was saved"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal lacks %q:\n%v", want, err)
				}
			}
			if has := strings.Contains(err.Error(), "downgrade"); has != (c.downgrade != "") || !strings.Contains(err.Error(), c.downgrade) {
				t.Errorf("the refusal names etcd's downgrade = %v, want %q:\n%v", has, c.downgrade, err)
			}
			nothingRestored(t, f, sim, before, c.now)
		})
	}
}

// TestAbortRestoreEtcdRefusesAnOldSnapshot: with --restore-etcd, a snapshot saved longer ago
// than the age limit (default 24h) is refused, naming its time, its revision and the limit, and
// nothing changes; a longer limit, or --force-old-snapshot, lets the restore run.
func TestAbortRestoreEtcdRefusesAnOldSnapshot(t *testing.T) {
	for _, c := range []struct {
		name    string
		limit   time.Duration
		force   bool
		refused bool
	}{
		{name: "default limit", refused: true},
		{name: "longer limit", limit: 48 * time.Hour},
		{name: "forced", force: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, sim := movedCluster(t, "3.5.12-0", "3.6.4-0")
			snap := snapshotTaken(t, f)
			f.w.Store = clockStore{Store: f.w.Store, at: snap.CreatedAt.Add(25 * time.Hour)}
			f.w.RestoreEtcd, f.w.MaxSnapshotAge, f.w.ForceOldSnapshot = true, c.limit, c.force
			before := len(f.c.played())
			err := f.w.Abort(t.Context())
			if !c.refused {
				if err != nil {
					t.Fatalf("abort --restore-etcd: %v", err)
				}
				f.wantState(t, state.UpgradeAborted)
				if sim.restored["controller-0"] != 1 || sim.restored["controller-1"] != 1 {
					t.Errorf("restores %v; want each member restored once", sim.restored)
				}
				return
			}
			if !errors.Is(err, state.ErrRefused) || !strings.Contains(err.Error(), "(1d1h ago) at etcd revision 321, longer ago than --max-snapshot-age 24h0m0s") ||
				!strings.Contains(err.Error(), "--force-old-snapshot") {
				t.Fatalf("abort --restore-etcd of a 25h-old snapshot: %v; want it refused, naming its age, its revision and --force-old-snapshot", err)
			}
			nothingRestored(t, f, sim, before, "3.6.4-0")
		})
	}
}

// TestAbortRestoreEtcdAsksNamingWhatItDiscards: before a restore, abort asks (ConfirmEtcd, the
// terminal's question) naming the snapshot's time and revision, etcd's revision now and what is
// discarded; a no changes nothing.
func TestAbortRestoreEtcdAsksNamingWhatItDiscards(t *testing.T) {
	f, sim := movedCluster(t, "3.5.12-0", "3.6.4-0")
	snap := snapshotTaken(t, f)
	var asked string
	f.w.RestoreEtcd = true
	f.w.ConfirmEtcd = func(what string) error {
		asked = what
		return state.ErrRefused
	}
	before := len(f.c.played())
	if err := f.w.Abort(t.Context()); !errors.Is(err, state.ErrRefused) {
		t.Fatalf("abort --restore-etcd answered no: %v; want refused", err)
	}
	for _, want := range []string{"restores 2 etcd member(s)", "saved " + snap.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC"),
		"at etcd revision 321", "etcd is at revision 400 now", "discards every API write made since it was saved"} {
		if !strings.Contains(asked, want) {
			t.Errorf("the question lacks %q:\n%s", want, asked)
		}
	}
	nothingRestored(t, f, sim, before, "3.6.4-0")
}
