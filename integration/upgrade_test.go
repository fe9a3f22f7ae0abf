//go:build integration

package integration_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// labUnderTest is a lab, kupgrade pointed at it and kupgrade's SQLite database opened read-only.
type labUnderTest struct {
	lab *lab.Lab
	k   *kupgrade
	db  *sql.DB
}

func startLab(t *testing.T, opts lab.Options) *labUnderTest {
	t.Helper()
	l := lab.Start(t, opts)
	dbPath := filepath.Join(t.TempDir(), "kupgrade.db")
	k := buildKupgrade(t, l, dbPath)
	createDB(t, dbPath)
	// recover with nothing stuck writes nothing.
	k.wantExit(t, 0, "recover")
	return &labUnderTest{lab: l, k: k, db: openDB(t, dbPath)}
}

// begin creates an upgrade to version (deleting the finished one before it) and runs it up to
// state until.
func (u *labUnderTest) begin(t *testing.T, version, until string) {
	t.Helper()
	if u.k.show(t).State == "upgrade-complete" {
		u.k.wantExit(t, 0, "upgrade", "delete")
	}
	u.k.wantExit(t, 0, "upgrade", "start", version)
	u.k.wantExit(t, 0, "upgrade", "run", "--until", until)
	if got := u.k.show(t).State; got != until {
		t.Fatalf("after upgrade run --until %s the state is %s", until, got)
	}
}

// finish runs the rest of the upgrade and checks it on the nodes.
func (u *labUnderTest) finish(t *testing.T, version string) {
	t.Helper()
	u.k.wantExit(t, 0, "upgrade", "run")
	if got := u.k.show(t).State; got != "upgrade-complete" {
		t.Fatalf("after upgrade run the state is %s, want upgrade-complete", got)
	}
	for _, n := range u.lab.Nodes() {
		if st := u.k.hostStatus(t, n.Name); st != "" {
			t.Errorf("after upgrade-complete %s has status %s, want NULL", n.Name, st)
		}
	}
	requireVersions(t, u.lab, version)
}

// failure is one injected kubeadm failure of a control-plane step and what kupgrade must make
// of it.
type failure struct {
	name  string
	host  string
	fault lab.Fault
	flags []string // global flags of the failing run
	class string   // the finding class (kubeadm/classify.go) the evidence must carry
}

// failThenRetry runs the control-plane step of f.host with f's fault armed: kupgrade exits 1,
// the state is the failed twin with the host status cleared and the lease released, the failure
// event carries the finding, no kubeadm is left on the node, and the retry succeeds.
func (u *labUnderTest) failThenRetry(t *testing.T, f failure, running, done string) {
	t.Helper()
	node := u.lab.Node(f.host)
	injectFault(t, node, f.fault)
	args := append(append([]string{}, f.flags...), "host", "upgrade", f.host, "control-plane")
	out := u.k.wantExit(t, 1, args...)

	show := u.k.show(t)
	if show.State != running+"-failed" {
		t.Errorf("state %s, want %s-failed", show.State, running)
	}
	if show.Lease != nil {
		t.Errorf("lease %+v still held after the failure was recorded", *show.Lease)
	}
	if st := u.k.hostStatus(t, f.host); st != "" {
		t.Errorf("%s status %q after the failure, want NULL so that the retry is accepted", f.host, st)
	}
	ev := newestFailure(t, u.db)
	if ev.ToState != running+"-failed" || ev.FromHostStatus != "upgrading-control-plane" {
		t.Errorf("newest event goes to %s clearing %q, want %s-failed clearing upgrading-control-plane", ev.ToState, ev.FromHostStatus, running)
	}
	if ev.Class != f.class {
		t.Errorf("finding class %q in the failure event, want %q; kupgrade said:\n%s", ev.Class, f.class, out)
	}
	if !strings.Contains(out, "kupgrade host upgrade "+f.host+" control-plane") {
		t.Errorf("kupgrade did not print the command to retry:\n%s", out)
	}
	requireNoKubeadm(t, node)

	u.k.wantExit(t, 0, "host", "upgrade", f.host, "control-plane")
	if got := u.k.show(t).State; got != done {
		t.Errorf("after the retry the state is %s, want %s", got, done)
	}
}

// TestUpgradeTwoControllers walks whole upgrades of one two-controller, one-worker lab: a clean
// one, then one upgrade per pair of failures (one on each controller, so both kubeadm upgrade
// apply and kubeadm upgrade node fail), each failure retried.
func TestUpgradeTwoControllers(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1})

	ok := t.Run("whole upgrade", func(t *testing.T) {
		u.k.wantExit(t, 0, "upgrade", "start", "v1.30.1")
		u.k.wantExit(t, 0, "upgrade", "run")
		if got := u.k.show(t).State; got != "upgrade-complete" {
			t.Fatalf("state %s, want upgrade-complete", got)
		}
		requireVersions(t, u.lab, "v1.30.1")
	})
	if !ok {
		return
	}
	cycles := []struct {
		version       string
		first, second failure
	}{
		{
			version: "v1.30.2",
			first: failure{name: "fault in preflight", host: "controller-0", class: "preflight",
				fault: lab.Fault{Phase: "preflight", Before: true, Action: lab.Exit, Status: 1, Once: true}},
			second: failure{name: "seed: exit 1 after kubelet-config", host: "controller-1", class: "kubelet-config-rewritten",
				fault: lab.Fault{Phase: "kubelet-config", Action: lab.Exit, Status: 1, Once: true}},
		},
		{
			version: "v1.30.3",
			first: failure{name: "SSH connection dropped after control-plane", host: "controller-0", class: "control-plane-done",
				fault: lab.Fault{Phase: "control-plane", Action: lab.Drop, Once: true}},
			second: failure{name: "hang after control-plane past the timeout", host: "controller-1", class: "control-plane-done",
				fault: lab.Fault{Phase: "control-plane", Action: lab.Hang, Once: true}, flags: []string{"--kubeadm-timeout", "5s"}},
		},
	}
	for _, c := range cycles {
		ok := t.Run(c.version, func(t *testing.T) {
			u.begin(t, c.version, "upgraded-networking")
			if !t.Run(c.first.name, func(t *testing.T) {
				u.failThenRetry(t, c.first, "upgrading-first-master", "upgraded-first-master")
			}) {
				t.FailNow()
			}
			if !t.Run(c.second.name, func(t *testing.T) {
				u.failThenRetry(t, c.second, "upgrading-second-master", "upgraded-second-master")
			}) {
				t.FailNow()
			}
			u.finish(t, c.version)
		})
		if !ok {
			return
		}
	}
	// What a kubeadm killed between its two moves of a swap leaves (the kill campaign found it):
	// the live kube-apiserver.yaml in the backup folder, the new one not yet in. `kubeadm upgrade
	// node` then takes controller-1 for a worker and skips its control plane; the retry must put
	// the manifest back first, or it fails verification forever.
	// The cut is this upgrade's: a first attempt on controller-1 fails in preflight (so the step has
	// recorded what the host held before), then the swap is cut; a folder from before the upgrade
	// would be refused instead (TestAbortRestoresWhatTheUpgradeChanged).
	t.Run("a swap cut between its two moves", func(t *testing.T) {
		u.begin(t, "v1.30.4", "upgraded-first-master")
		injectFault(t, u.lab.Node("controller-1"), lab.Fault{Phase: "preflight", Action: lab.Exit, Status: 1, Once: true})
		u.k.wantExit(t, 1, "host", "upgrade", "controller-1", "control-plane")
		cut := "d=/etc/kubernetes/tmp/kubeadm-backup-manifests-2026-12-03-13-38-45; mkdir -p $d && mv /etc/kubernetes/manifests/kube-apiserver.yaml $d/"
		if out, err := u.lab.Node("controller-1").Exec(t.Context(), "sh", "-c", cut); err != nil {
			t.Fatalf("cut the swap: %v: %s", err, out)
		}
		out := u.k.wantExit(t, 0, "host", "upgrade", "controller-1", "control-plane")
		if !strings.Contains(out, "Restore a manifest an interrupted kubeadm left missing") {
			t.Errorf("the step's output does not show the restore:\n%s", out)
		}
		u.finish(t, "v1.30.4")
	})
	// A real kubeadm upgrade apply right after a control plane restarted can miss its own
	// preflight health check (a Job given 15 s; the real lab met it). The step runs kubeadm again
	// on that failure, and only on that one ("fault in preflight" above fails the step).
	t.Run("kubeadm's health-check Job misses its 15 s once", func(t *testing.T) {
		u.begin(t, "v1.30.5", "upgraded-networking")
		const failures = `SELECT COUNT(*) FROM kube_upgrade_event WHERE to_state LIKE '%-failed'`
		before := countRows(t, u.db, failures)
		injectFault(t, u.lab.Node("controller-0"), lab.Fault{Phase: "preflight", Before: true, Action: lab.Exit, Check: "CreateJob", Once: true})
		out := u.k.wantExit(t, 0, "host", "upgrade", "controller-0", "control-plane")
		if got := u.k.show(t).State; got != "upgraded-first-master" {
			t.Fatalf("state %s after the step, want upgraded-first-master:\n%s", got, out)
		}
		if n := countRows(t, u.db, failures) - before; n != 0 {
			t.Errorf("the step recorded %d failure(s), want none", n)
		}
		u.finish(t, "v1.30.5")
	})
}
