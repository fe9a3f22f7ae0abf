package upgrade_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

const snapData = "etcd snapshot bytes"

// snapshotCluster makes f's controllers answer as a stacked etcd with etcdctl: the
// ClusterConfiguration, the snapshot script's output (its sha256 is sum) and the file's bytes.
func snapshotCluster(t *testing.T, f *fixture, sum string) string {
	dir := t.TempDir()
	f.w.Snapshots = upgrade.SnapshotOptions{Dir: dir, Keep: 2}
	f.c.results = map[string]runnertest.Result{
		"kubeadm-config":       {Stdout: "### kupgrade-health kubeadm-config rc=0\netcd:\n  local:\n    dataDir: /var/lib/etcd\n"},
		"kupgrade-snapshot.db": {Stdout: snapData},
	}
	out := fmt.Sprintf("### kupgrade-health save rc=0\nSnapshot saved\n### kupgrade-health status rc=0\n"+
		`{"hash":5,"revision":321,"totalKey":9,"totalSize":4096}`+"\n### kupgrade-health sha256 rc=0\n%s  /var/lib/etcd/kupgrade-snapshot.db\n"+
		"### kupgrade-health size rc=0\n%d\n", sum, len(snapData))
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		if name != "etcd-snapshot" {
			return nil, nil, false
		}
		reg := map[string]map[string]any{limit: {"etcd_snapshot": map[string]any{"stdout": out}}}
		return &runner.Recap{Hosts: map[string]*runner.HostRecap{}, Registered: reg}, nil, true
	}
	return dir
}

func sumOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestSnapshotBeforeTheFirstControlPlane: the first controller's control-plane step saves an
// etcd snapshot under its fence before kubeadm, copies it to the snapshot folder, records it
// with an event naming where; the second controller's step takes none.
func TestSnapshotBeforeTheFirstControlPlane(t *testing.T) {
	f := newFixture(t)
	dir := snapshotCluster(t, f, sumOf(snapData))
	f.at(t, state.UpgradedSecondMaster)
	snaps, err := f.st.Snapshots(t.Context(), "default")
	if err != nil || len(snaps) != 1 {
		t.Fatalf("snapshots recorded = %+v, %v; want one", snaps, err)
	}
	s := snaps[0]
	if got, err := os.ReadFile(s.Path); err != nil || string(got) != snapData || filepath.Dir(s.Path) != filepath.Join(dir, "default") {
		t.Fatalf("snapshot file %s: %q, %v; want the controller's bytes under %s", s.Path, got, err, dir)
	}
	if s.Revision != 321 || s.SHA256 != sumOf(snapData) || s.Hostname != "controller-0" || s.Hop != 0 {
		t.Errorf("snapshot recorded = %+v", s)
	}
	plays := f.c.played()
	i := slices.Index(plays, "etcd-snapshot@controller-0")
	if i < 0 || i+1 >= len(plays) || plays[i+1] != "control-plane@controller-0" || slices.Contains(plays, "etcd-snapshot@controller-1") {
		t.Errorf("plays = %v; want etcd-snapshot@controller-0 right before its control-plane, and none on controller-1", plays)
	}
	if !eventSays(t, f, "etcd snapshot saved: "+s.Path) {
		t.Error("no event names where the snapshot is")
	}
}

// TestSnapshotCorruptCopyFailsTheStep: a copy whose sha256 is not the controller's fails the
// step into its failed twin; nothing is recorded, no file keeps a snapshot's name, kubeadm
// never ran.
func TestSnapshotCorruptCopyFailsTheStep(t *testing.T) {
	f := newFixture(t)
	dir := snapshotCluster(t, f, sumOf("other bytes"))
	f.at(t, state.UpgradedNetworking)
	err := f.w.Run(t.Context(), upgrade.RunOptions{Until: state.UpgradedFirstMaster})
	if err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("run: %v; want the checksum named", err)
	}
	f.wantState(t, state.UpgradingFirstMasterFailed)
	if snaps, _ := f.st.Snapshots(t.Context(), "default"); len(snaps) != 0 {
		t.Errorf("snapshots recorded = %+v; want none", snaps)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "default", "*")); len(files) != 0 {
		t.Errorf("files left: %v", files)
	}
	if slices.Contains(f.c.played(), "control-plane@controller-0") {
		t.Error("kubeadm ran after the snapshot failed")
	}
}

// TestSnapshotNoEtcdctl: with no etcdctl on the controller the step goes on, and an event says
// why no snapshot exists.
func TestSnapshotNoEtcdctl(t *testing.T) {
	f := newFixture(t)
	snapshotCluster(t, f, sumOf(snapData))
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		if name != "etcd-snapshot" {
			return nil, nil, false
		}
		out := "### kupgrade-health etcdctl rc=127\netcdctl: not found on this host, nor an etcd container\n"
		reg := map[string]map[string]any{limit: {"etcd_snapshot": map[string]any{"stdout": out}}}
		return &runner.Recap{Registered: reg}, nil, true
	}
	f.at(t, state.UpgradedFirstMaster)
	if !eventSays(t, f, "no etcd snapshot at hop 0: no etcdctl on the controller") {
		t.Error("no event says why there is no snapshot")
	}
}

// TestSnapshotPruning keeps the files of the newest Keep upgrades, the running one counted.
func TestSnapshotPruning(t *testing.T) {
	f := newFixture(t)
	dir := snapshotCluster(t, f, sumOf(snapData))
	folder := filepath.Join(dir, "default")
	old := time.Now().Add(-time.Hour)
	for i, id := range []string{"oldest", "older", "newer"} {
		p := filepath.Join(folder, id+"-hop0-x.db")
		os.MkdirAll(folder, 0o700)
		os.WriteFile(p, []byte(id), 0o600)
		at := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(p, at, at)
	}
	os.WriteFile(filepath.Join(folder, ".partial-123"), nil, 0o600)
	f.at(t, state.UpgradedFirstMaster)
	files, _ := filepath.Glob(filepath.Join(folder, "*"))
	var names []string
	for _, p := range files {
		names = append(names, strings.SplitN(filepath.Base(p), "-hop", 2)[0])
	}
	u := f.wantState(t, state.UpgradedFirstMaster)
	if want := []string{"newer", u.UUID}; len(names) != 2 || !slices.Contains(names, want[0]) || !slices.Contains(names, want[1]) {
		t.Errorf("kept %v; want the newer upgrade's and this one's (keep 2), no partial copy", names)
	}
}

func eventSays(t *testing.T, f *fixture, text string) bool {
	es, err := f.st.Events(t.Context(), "default", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.Contains(e.Reason, text) {
			return true
		}
	}
	return false
}
