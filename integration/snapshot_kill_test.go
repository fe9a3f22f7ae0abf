//go:build integration

package integration_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// snapshotRow is a row of etcd_snapshot.
type snapshotRow struct {
	UUID, Host, Path, SHA256 string
	Hop                      int
	Revision, Size           int64
}

// snapshots lists the etcd snapshots recorded for the lab's current upgrade.
func (u *labUnderTest) snapshots(t *testing.T) []snapshotRow {
	t.Helper()
	rows, err := u.db.QueryContext(t.Context(), `SELECT s.upgrade_uuid, s.hostname, s.path, s.sha256, s.hop, s.revision, s.size
		FROM etcd_snapshot s JOIN kube_upgrade u ON u.uuid = s.upgrade_uuid ORDER BY s.id`)
	if err != nil {
		t.Fatalf("read etcd_snapshot: %v", err)
	}
	defer rows.Close()
	var out []snapshotRow
	for rows.Next() {
		var r snapshotRow
		if err := rows.Scan(&r.UUID, &r.Host, &r.Path, &r.SHA256, &r.Hop, &r.Revision, &r.Size); err != nil {
			t.Fatalf("read etcd_snapshot: %v", err)
		}
		out = append(out, r)
	}
	return out
}

// requireOneVerifiedSnapshot fails unless exactly one snapshot is recorded for the current
// upgrade, taken on controller-0, whose file on kupgrade's side has the recorded sha256 and size.
func (u *labUnderTest) requireOneVerifiedSnapshot(t *testing.T, dir string) snapshotRow {
	t.Helper()
	snaps := u.snapshots(t)
	if len(snaps) != 1 {
		t.Fatalf("%d etcd snapshots recorded for the upgrade, want 1: %+v", len(snaps), snaps)
	}
	s := snaps[0]
	if s.Host != "controller-0" || s.Revision <= 0 || !strings.HasPrefix(s.Path, dir) {
		t.Errorf("snapshot %+v: want one of controller-0, a positive revision, a file under %s", s, dir)
	}
	data, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatalf("the recorded snapshot's file: %v", err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != s.SHA256 || int64(len(data)) != s.Size {
		t.Errorf("snapshot file %s: sha256 %s, %d bytes; recorded %s, %d bytes", s.Path, got, len(data), s.SHA256, s.Size)
	}
	if !strings.Contains(string(data), "/registry/kupgrade-lab/cluster-version ") {
		t.Errorf("snapshot file %s does not hold the lab's cluster state:\n%s", s.Path, data)
	}
	return s
}

// snapshotFiles lists the files in the snapshot folder (every cluster's), partial copies included.
func snapshotFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, filepath.Base(p))
		}
		return err
	})
	if err != nil {
		t.Fatalf("list %s: %v", dir, err)
	}
	return files
}

// waitLabEvent waits until n's lab events log has a line containing text.
func waitLabEvent(t *testing.T, n *lab.Node, text string, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if out, _ := n.Exec(t.Context(), "cat", "/var/log/kupgrade-lab/events.log"); strings.Contains(out, text) {
			return
		}
	}
	t.Fatalf("%s's lab events never showed %q within %s", n.Name, text, within)
}

// ranKubeadm reports whether n's lab events log shows a kubeadm upgrade.
func ranKubeadm(t *testing.T, n *lab.Node) bool {
	t.Helper()
	out, err := n.Exec(t.Context(), "sh", "-c", "cat /var/log/kupgrade-lab/events.log 2>/dev/null || true")
	if err != nil {
		t.Fatalf("read %s's lab events: %v", n.Name, err)
	}
	return strings.Contains(out, "kubeadm upgrade")
}

// startSnapshotLab is a one-controller, one-worker lab whose kupgrade keeps its etcd snapshots
// in the returned folder, with a two-second lease.
func startSnapshotLab(t *testing.T) (*labUnderTest, string) {
	u := startLab(t, lab.Options{Controllers: 1, Workers: 1})
	dir := t.TempDir()
	u.k.env = append(u.k.env, "KUPGRADE_LEASE_TTL=2s", "KUPGRADE_SNAPSHOT_DIR="+dir)
	return u, dir
}

// TestFaultKillInsideTheEtcdSnapshot: SIGKILL of `upgrade run` while the lab's etcdctl snapshot
// save runs on the first controller (held open by a delay), before kubeadm. The database is as
// the kill left it (in flight under the dead runner's lease), no snapshot is recorded and no file
// has a snapshot's name on kupgrade's side, and kubeadm never ran. Once the lease expires
// `recover` fails the step through the one path (upgrading-first-master-failed, the host's
// status cleared), and `upgrade run` completes with exactly one snapshot recorded, whose file on
// kupgrade's side matches its recorded sha256.
func TestFaultKillInsideTheEtcdSnapshot(t *testing.T) {
	t.Parallel()
	u, dir := startSnapshotLab(t)
	c0 := u.lab.Node("controller-0")
	target := patch(1)
	u.k.wantExit(t, 0, "upgrade", "start", target)
	injectFault(t, c0, lab.Fault{Phase: lab.PhaseEtcdSnapshot, Before: true, Action: lab.Delay, Seconds: 60, Once: true})
	cmd, wait := u.k.start(t, "upgrade", "run")
	u.waitHostStatus(t, "controller-0", "upgrading-control-plane", 3*time.Minute)
	waitLabEvent(t, c0, "etcdctl snapshot save /var/lib/etcd/kupgrade-snapshot.db started", time.Minute)
	_ = cmd.Process.Kill()
	wait()

	if !u.consistentAfterKill(t, 0, 0) || !inFlight(t, u.db) {
		t.Fatalf("kill inside the snapshot: the database is not as the kill left it (in flight: %v)", inFlight(t, u.db))
	}
	if snaps := u.snapshots(t); len(snaps) != 0 {
		t.Errorf("a snapshot cut by the kill is recorded: %+v", snaps)
	}
	for _, f := range snapshotFiles(t, dir) {
		if strings.HasSuffix(f, ".db") {
			t.Errorf("a file with a snapshot's name on kupgrade's side after the kill: %s", f)
		}
	}
	if ranKubeadm(t, c0) {
		t.Errorf("kubeadm ran on controller-0 although the snapshot before it was cut")
	}

	time.Sleep(2500 * time.Millisecond) // the dead runner's lease expires
	u.k.wantExit(t, 0, "recover")
	if got := u.k.show(t).State; got != "upgrading-first-master-failed" {
		t.Errorf("after recover the state is %s, want upgrading-first-master-failed", got)
	}
	if st := u.k.hostStatus(t, "controller-0"); st != "" {
		t.Errorf("after recover controller-0 is %q, want its status cleared", st)
	}
	u.finish(t, target)
	u.requireOneVerifiedSnapshot(t, dir)
	for _, n := range u.lab.Nodes() {
		requireNoKubeadm(t, n)
	}
	for _, h := range eventHoles(t, u.db) {
		t.Errorf("event log hole: %s", h)
	}
}

// TestFaultEtcdSnapshotFails: the lab's etcdctl lists the one controller as etcd's member; its
// snapshot save fails on the first controller (its snapshot stream breaks). The control-plane step ends in its failed twin, naming etcdctl's
// error; nothing is recorded and kubeadm never ran on the controller. The retry takes the
// snapshot, records it (verified by its sha256 on kupgrade's side) and the upgrade completes.
func TestFaultEtcdSnapshotFails(t *testing.T) {
	t.Parallel()
	u, dir := startSnapshotLab(t)
	c0 := u.lab.Node("controller-0")
	target := patch(1)
	if list, err := c0.Exec(t.Context(), "etcdctl", "member", "list", "-w", "json"); err != nil || !strings.Contains(list, `"name":"controller-0"`) {
		t.Errorf("the lab's etcdctl member list does not name controller-0 (%v):\n%s", err, list)
	}
	u.begin(t, target, "upgraded-networking")
	injectFault(t, c0, lab.Fault{Phase: lab.PhaseEtcdSnapshot, Action: lab.Exit, Status: 1, Once: true})
	out := u.k.wantExit(t, 1, "host", "upgrade", "controller-0", "control-plane")

	if got := u.k.show(t).State; got != "upgrading-first-master-failed" {
		t.Errorf("after the failed snapshot the state is %s, want upgrading-first-master-failed", got)
	}
	if !strings.Contains(out, "error reading from server: EOF (failure injected by kupgrade-lab)") {
		t.Errorf("kupgrade's output does not name etcdctl's error:\n%s", out)
	}
	if snaps := u.snapshots(t); len(snaps) != 0 {
		t.Errorf("a failed snapshot is recorded: %+v", snaps)
	}
	if ranKubeadm(t, c0) {
		t.Errorf("kubeadm ran on controller-0 although the snapshot before it failed")
	}
	if ls, _ := c0.Exec(t.Context(), "sh", "-c", "ls /var/lib/etcd"); strings.Contains(ls, "kupgrade-snapshot.db") {
		t.Errorf("etcdctl's failed save left a file on controller-0: %s", ls)
	}
	requireVersionsOn(t, c0, lab.DefaultVersion)

	u.k.wantExit(t, 0, "host", "upgrade", "controller-0", "control-plane")
	first := u.requireOneVerifiedSnapshot(t, dir)
	u.finish(t, target)
	if again := u.requireOneVerifiedSnapshot(t, dir); again != first {
		t.Errorf("the rest of the upgrade changed the snapshot record: %+v, then %+v", first, again)
	}
}

// requireVersionsOn fails unless the control-plane manifests of controller n carry version.
func requireVersionsOn(t *testing.T, n *lab.Node, version string) {
	t.Helper()
	out, err := n.Exec(t.Context(), "sh", "-c", "cat /etc/kubernetes/manifests/kube-*.yaml")
	if err != nil {
		t.Fatalf("read manifests on %s: %v", n.Name, err)
	}
	for _, m := range imageTag.FindAllStringSubmatch(out, -1) {
		if m[2] != version {
			t.Errorf("%s: %s manifest at %s, want %s", n.Name, m[1], m[2], version)
		}
	}
}
