package upgrade_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state"
)

// withEtcd gives controller-0 a stacked etcd at tag now after the upgrade recorded it at from.
func withEtcd(t *testing.T, f *fixture, from, now string) {
	f.c.mu.Lock()
	f.c.snaps["controller-0"].Manifests["etcd"] = from
	f.c.mu.Unlock()
	f.at(t, state.UpgradedFirstMaster)
	f.c.mu.Lock()
	f.c.snaps["controller-0"].Manifests["etcd"] = now
	f.c.mu.Unlock()
}

func aborted(f *fixture) bool {
	return slices.ContainsFunc(f.c.played(), func(p string) bool { return strings.HasPrefix(p, "abort@") })
}

// TestAbortEtcdRefusals: when etcd must be put back (--restore-etcd, or the upgrade moved etcd
// to a newer minor), abort refuses before anything is written, saying why: no snapshot, a
// snapshot whose file is gone or corrupt, or (verified) the restore commands to run by hand.
func TestAbortEtcdRefusals(t *testing.T) {
	cases := []struct {
		name      string
		snapshot  bool
		corrupt   bool
		flag      bool
		etcdNow   string
		want      string
		refused   bool
		restoring bool
	}{
		{name: "asked, no snapshot", flag: true, etcdNow: "3.5.12-0", refused: true, want: "has no etcd snapshot"},
		{name: "asked, snapshot verified", snapshot: true, flag: true, etcdNow: "3.5.12-0", refused: true, want: "etcdutl snapshot restore"},
		{name: "asked, snapshot corrupt", snapshot: true, corrupt: true, flag: true, etcdNow: "3.5.12-0", refused: true, want: "not the " + sumOf(snapData) + " recorded"},
		{name: "etcd moved a minor", snapshot: true, etcdNow: "3.6.4-0", refused: true, want: "moved etcd to a newer minor on controller-0 (etcd 3.6.4-0, was 3.5.12-0)"},
		{name: "etcd moved a patch", snapshot: true, etcdNow: "3.5.15-0", restoring: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			if c.snapshot {
				snapshotCluster(t, f, sumOf(snapData))
			}
			withEtcd(t, f, "3.5.12-0", c.etcdNow)
			if c.corrupt {
				snaps, _ := f.st.Snapshots(t.Context(), "default")
				os.WriteFile(snaps[0].Path, []byte("flipped"), 0o600)
				f.c.results["kupgrade-snapshot.db"] = runnertest.Result{Stdout: "flipped"} // the controller's copy too
			}
			f.w.RestoreEtcd = c.flag
			err := f.w.Abort(t.Context())
			if c.refused != errors.Is(err, state.ErrRefused) || (c.want != "" && !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("abort: %v; want refused=%v naming %q", err, c.refused, c.want)
			}
			if aborted(f) != c.restoring {
				t.Errorf("abort playbook ran = %v, want %v", aborted(f), c.restoring)
			}
			if c.refused {
				f.wantState(t, state.UpgradedFirstMaster)
			}
		})
	}
}

// TestAbortEtcdRestoredByHand: after the operator restored etcd by hand, --etcd-restored lets
// the abort put the manifests back, and an event records it.
func TestAbortEtcdRestoredByHand(t *testing.T) {
	f := newFixture(t)
	snapshotCluster(t, f, sumOf(snapData))
	withEtcd(t, f, "3.5.12-0", "3.6.4-0")
	f.w.EtcdRestored = true
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("abort --etcd-restored: %v", err)
	}
	if !aborted(f) || !eventSays(t, f, "etcd restored by hand") {
		t.Errorf("plays %v; want the abort to run and an event to record --etcd-restored", f.c.played())
	}
}
