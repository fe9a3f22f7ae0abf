//go:build integration

package integration_test

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// Complete asks the API server before it writes upgrade-complete: with worker-0's kubelet
// upgraded but its node status still at the old version, `upgrade run` ends in
// upgrade-completing-failed naming worker-0 and the version it reports, the hosts still
// upgraded and the lease free; once the node reports the target, the same command completes.
func TestCompleteVerifiesTheCluster(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1})
	worker := u.lab.Node("worker-0")
	injectFault(t, worker, lab.Fault{Phase: lab.PhaseKubeletStatus, Before: true, Action: lab.Stale})
	u.k.wantExit(t, 0, "upgrade", "start", "v1.30.1")
	out := u.k.wantExit(t, 1, "--verify-timeout", "5s", "upgrade", "run")
	show := u.k.show(t)
	if show.State != "upgrade-completing-failed" {
		t.Fatalf("state %s after a verification that cannot pass, want upgrade-completing-failed; kupgrade said:\n%s", show.State, out)
	}
	if show.Lease != nil {
		t.Errorf("lease %+v still held after the failure", *show.Lease)
	}
	want := "worker-0 (kubelet " + lab.DefaultVersion + ", want v1.30.1)"
	var reason string
	if err := u.db.QueryRowContext(t.Context(), `SELECT reason FROM kube_upgrade_event
		WHERE to_state = 'upgrade-completing-failed' ORDER BY id DESC LIMIT 1`).Scan(&reason); err != nil {
		t.Fatalf("no failure event of complete: %v", err)
	}
	if !strings.Contains(reason, want) || !strings.Contains(out, want) {
		t.Errorf("the failure does not name %q:\nevent: %s\nkupgrade said:\n%s", want, reason, out)
	}
	if !strings.Contains(out, "kupgrade upgrade complete") {
		t.Errorf("no retry command printed:\n%s", out)
	}
	if st := u.k.hostStatus(t, "worker-0"); st != "upgraded-kubelet" {
		t.Errorf("worker-0 is %q after the failed verification, want upgraded-kubelet", st)
	}

	if err := worker.ClearFault(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.Exec(t.Context(), "kupgrade-lab-kubelet", "restart"); err != nil { // posts its status
		t.Fatal(err)
	}
	u.k.wantExit(t, 0, "upgrade", "run")
	if got := u.k.show(t).State; got != "upgrade-complete" {
		t.Fatalf("after the retry the state is %s, want upgrade-complete", got)
	}
	for _, n := range u.lab.Nodes() {
		if st := u.k.hostStatus(t, n.Name); st != "" {
			t.Errorf("after upgrade-complete %s has status %s, want NULL", n.Name, st)
		}
	}
	requireVersions(t, u.lab, "v1.30.1")
}

// A kubeadm that finds the API server not ready yet (its read of the kubeadm-config ConfigMap
// refused, Forbidden, as right after that API server restarted) has changed nothing, and the
// playbooks run it again after a pause; a drain refused for a moment is tried again too. With
// the kubeadm failure once on the second controller and once on the worker, and the first drain
// (run from controller-0) failing once, one `upgrade run` completes, kubeadm having run twice
// on each of the two.
func TestKubeadmRunAgainWhileTheAPIServerSyncs(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1})
	names := []string{"controller-1", "worker-0"}
	for _, name := range names {
		injectFault(t, u.lab.Node(name), lab.Fault{Phase: "config", Before: true, Action: lab.Exit, Once: true})
	}
	injectFault(t, u.lab.Node("controller-0"), lab.Fault{Phase: "evict", Before: true, Action: lab.Exit, Once: true})
	u.k.wantExit(t, 0, "upgrade", "start", "v1.30.1")
	out := u.k.wantExit(t, 0, "upgrade", "run")
	if got := u.k.show(t).State; got != "upgrade-complete" {
		t.Fatalf("state %s, want upgrade-complete; kupgrade said:\n%s", got, out)
	}
	for _, name := range names {
		log := run(t, u.lab.Node(name), "cat /var/log/kupgrade-lab/events.log")
		if n := strings.Count(log, "kubeadm upgrade node"); n != 2 || !strings.Contains(log, "fault fired: in=config") {
			t.Errorf("%s ran kubeadm upgrade node %d times (want 2, the first refused):\n%s", name, n, log)
		}
	}
	if log := run(t, u.lab.Node("controller-0"), "cat /var/log/kupgrade-lab/events.log"); !strings.Contains(log, "fault fired: in=evict") {
		t.Errorf("the drain's fault never fired on controller-0:\n%s", log)
	}
	for _, n := range u.lab.Nodes() {
		if c, err := u.lab.Cordoned(t.Context(), n.Name); err != nil || c {
			t.Errorf("%s cordoned = %v (%v) after the run, want false", n.Name, c, err)
		}
	}
	requireVersions(t, u.lab, "v1.30.1")
}
