//go:build integration

package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestRealAbortRestoresEtcd is issue 24's proof of the abort that rolls back, on a real kubeadm:
// a ConfigMap created before the etcd snapshot and one after it; the control plane of both
// controllers upgraded; `upgrade abort --restore-etcd` puts etcd back from the snapshot itself
// and ends upgrade-aborted with every controller (manifests and kubelet) at the starting version,
// /readyz ok, the first ConfigMap there and the second gone; on the external etcd host etcd-0 the
// old data dir is kept aside and an event records the member's restore. It logs its figures.
func TestRealAbortRestoresEtcd(t *testing.T) {
	u := startRealLab(t)
	requireRestorableEtcd(t, u.lab)
	from, to := lab.RealFromVersion, lab.RealToVersion
	u.k.env = append(u.k.env, "KUPGRADE_SNAPSHOT_DIR="+t.TempDir())
	if _, err := u.lab.KubectlRun(t.Context(), "create", "configmap", "kupgrade-before-snapshot", "--from-literal=at=before"); err != nil {
		t.Fatal(err)
	}
	u.k.wantExit(t, 0, "upgrade", "start", to)
	start := time.Now()
	u.k.wantExit(t, 0, "upgrade", "run", "--until", "upgraded-first-master")
	first := time.Since(start)
	if n := countRows(t, u.db, "SELECT COUNT(*) FROM etcd_snapshot"); n != 1 {
		t.Fatalf("%d etcd snapshots recorded after the first controller's control plane; want 1", n)
	}
	if _, err := u.lab.KubectlRun(t.Context(), "create", "configmap", "kupgrade-after-snapshot", "--from-literal=at=after"); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	u.k.wantExit(t, 0, "upgrade", "run", "--until", "upgraded-second-master")
	second := time.Since(start)
	start = time.Now()
	u.k.wantExit(t, 0, "upgrade", "abort", "--restore-etcd")
	abort := time.Since(start)
	if got := u.k.show(t).State; got != "upgrade-aborted" {
		t.Fatalf("after abort --restore-etcd the state is %s, want upgrade-aborted", got)
	}
	requireEtcdRestoredAside(t, u)
	requireVersions(t, u.lab, from)
	requireRealCluster(t, u.lab, from)
	if _, err := u.lab.KubectlRun(t.Context(), "get", "configmap", "kupgrade-before-snapshot"); err != nil {
		t.Errorf("the ConfigMap created before the snapshot is gone: %v", err)
	}
	if out, err := u.lab.KubectlRun(t.Context(), "get", "configmap", "kupgrade-after-snapshot"); err == nil {
		t.Errorf("the ConfigMap created after the snapshot is still there: %s", out)
	}
	var size, revision int64
	if err := u.db.QueryRow("SELECT size, revision FROM etcd_snapshot").Scan(&size, &revision); err != nil {
		t.Fatal(err)
	}
	t.Logf("figures: run to upgraded-first-master (snapshot included) %s, to upgraded-second-master %s, abort --restore-etcd %s; snapshot %d bytes at revision %d",
		first.Round(100*time.Millisecond), second.Round(100*time.Millisecond), abort.Round(100*time.Millisecond), size, revision)
}

// requireEtcdRestoredAside: on the external etcd host the data dir carries the restore's mark
// and the data dir etcd ran on before the abort is kept beside it, and the abort recorded the
// member's restore as an event.
func requireEtcdRestoredAside(t *testing.T, u *labUnderTest) {
	t.Helper()
	e := u.lab.EtcdHost()
	out, err := e.Exec(t.Context(), "sh", "-c", "cat /var/lib/etcd/etcd-0/kupgrade-restored && ls -d /var/lib/etcd/etcd-0.kupgrade-before-*/member")
	if err != nil || strings.Count(out, "\n") != 2 {
		t.Errorf("on %s, the restore's mark and the old data dir kept aside: %q (%v)", e.Name, out, err)
	}
	if n := countRows(t, u.db, "SELECT COUNT(*) FROM kube_upgrade_event WHERE hostname = ? AND reason LIKE ?", e.Name, "abort: etcd member restored%"); n != 1 {
		t.Errorf("%d events record the restore of %s, want 1", n, e.Name)
	}
}

// requireRestorableEtcd skips unless the lab's etcd can be restored by kupgrade: its external
// etcd a host of the inventory's etcd group (with etcd.service and etcdctl), as the real lab's
// etcd-0 is (lab.EtcdHost).
func requireRestorableEtcd(t *testing.T, l *lab.Lab) {
	t.Helper()
	inv, err := os.ReadFile(l.Inventory())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(inv), "\n    etcd:\n") {
		t.Skipf("the real lab's etcd is not a host of %s's etcd group (with etcd.service and etcdctl): kupgrade cannot snapshot or restore it", filepath.Base(l.Inventory()))
	}
}
