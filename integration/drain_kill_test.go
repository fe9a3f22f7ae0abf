//go:build integration

package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestFaultKillInsideDrainAndInstall: SIGKILL of `upgrade run` at two moments of the worker's
// kubelet step, each held open by a delay the lab injects: inside the drain (the worker
// draining-node, kubectl drain waiting on its evictions) and inside the install (the worker
// upgrading-kubelet, apt-get downloading kubeadm). After each kill the database is consistent
// (the host in flight only under the dead runner's lease, the newest event leading to the
// state); once the lease expires `recover` fails the host through the one path (the drain to
// draining-node-failed, the install to idle), and `upgrade run` completes: every node at the
// target, the worker uncordoned, no kubeadm left running. The install killed with its session
// finishes on its own and holds kubeadm again before the retry.
func TestFaultKillInsideDrainAndInstall(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 1, Workers: 1})
	u.k.env = append(u.k.env, "KUPGRADE_LEASE_TTL=2s")
	ctx := t.Context()
	moments := []struct {
		name   string
		fault  lab.Fault
		status string // the worker's status when the kill comes
		after  string // its status once recover has failed it
	}{
		{"drain", lab.Fault{Phase: "evict", Action: lab.Delay, Seconds: 60, Once: true}, "draining-node", "draining-node-failed"},
		{"install", lab.Fault{Phase: "apt-download", Action: lab.Delay, Seconds: 60, Once: true}, "upgrading-kubelet", "upgrading-kubelet-failed"},
	}
	for i, m := range moments {
		target := patch(i + 1)
		u.k.wantExit(t, 0, "upgrade", "start", target)
		if err := u.lab.Node("worker-0").InjectFault(ctx, m.fault); err != nil {
			t.Fatal(err)
		}
		cmd, wait := u.k.start(t, "upgrade", "run")
		u.waitHostStatus(t, "worker-0", m.status, 3*time.Minute)
		if m.name == "install" {
			waitFired(t, u.lab.Node("worker-0"), 3*time.Minute) // apt-get is inside its download
		}
		_ = cmd.Process.Kill()
		wait()
		if !u.consistentAfterKill(t, i, 0) || !inFlight(t, u.db) {
			t.Fatalf("kill inside the %s: the database is not as the kill left it (in flight: %v)", m.name, inFlight(t, u.db))
		}
		time.Sleep(2500 * time.Millisecond) // the dead runner's lease expires
		u.k.wantExit(t, 0, "recover")
		if st := u.k.hostStatus(t, "worker-0"); st != m.after {
			t.Errorf("kill inside the %s: after recover worker-0 is %q, want %q", m.name, st, m.after)
		}
		if m.name == "install" {
			// The install and its hold outlive the killed session: kubeadm ends at the target
			// and held again before anyone retries.
			waitHeld(t, u.lab.Node("worker-0"), "kubeadm", target, 3*time.Minute)
		}
		if err := u.lab.Node("worker-0").ClearFault(ctx); err != nil {
			t.Fatal(err)
		}
		u.finish(t, target)
		if got, err := u.lab.Cordoned(ctx, "worker-0"); err != nil || got {
			t.Errorf("kill inside the %s: worker-0 cordoned = %v (%v) after the retry, want false", m.name, got, err)
		}
		for _, n := range u.lab.Nodes() {
			requireNoKubeadm(t, n)
		}
		u.k.wantExit(t, 0, "upgrade", "delete")
	}
	for _, h := range eventHoles(t, u.db) {
		t.Errorf("event log hole: %s", h)
	}
}

// waitHostStatus polls the database until host's status is want, failing after within.
func (u *labUnderTest) waitHostStatus(t *testing.T, host, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if countRows(t, u.db, `SELECT COUNT(*) FROM kube_host_upgrade hu JOIN host h ON h.id = hu.host_id
			WHERE h.hostname = ? AND hu.status = ?`, host, want) > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never became %s within %s", host, want, within)
}

// waitHeld polls node's packages until pkg is at version (vX.Y.Z) and held, failing after within.
func waitHeld(t *testing.T, node *lab.Node, pkg, version string, within time.Duration) {
	t.Helper()
	var last lab.Package
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(time.Second) {
		pkgs, err := node.Packages(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if last = pkgs[pkg]; last.Held && strings.HasPrefix(last.Version, version[1:]+"-") {
			return
		}
	}
	t.Fatalf("%s on %s is %+v after %s, want %s held", pkg, node.Name, last, within, version)
}

// waitFired polls node until its once fault has fired (its fault file is gone), failing after
// within.
func waitFired(t *testing.T, node *lab.Node, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := node.Exec(t.Context(), "test", "!", "-e", lab.FaultFile); err == nil {
			return
		}
	}
	t.Fatalf("the fault on %s never fired within %s", node.Name, within)
}
