package main

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/sim"
)

// TestSimCompleteVerifiesTheCluster: complete asks the API server before it writes
// upgrade-complete. With worker-0's kubelet upgraded but its node status still at the old
// version, `upgrade run` ends in upgrade-completing-failed naming worker-0 and the version it
// reports, the hosts still upgraded and the lease free; once the node reports the target, the
// same command completes.
func TestSimCompleteVerifiesTheCluster(t *testing.T) {
	t.Parallel()
	l := startSim(t, sim.Options{})
	worker := l.host(0, "worker-0")
	if err := worker.InjectFault(sim.Fault{Phase: sim.PhaseKubeletStatus, Before: true, Action: sim.Stale}); err != nil {
		t.Fatal(err)
	}
	l.want(t, 0, 0, "upgrade", "start", "v1.30.1")
	out := l.want(t, 0, 1, "--verify-timeout", "2s", "upgrade", "run", "-y")
	show := l.show(t, 0)
	if show.State != "upgrade-completing-failed" || show.Lease != nil {
		t.Fatalf("state %s, lease %+v after a verification that cannot pass, want upgrade-completing-failed and no lease:\n%s", show.State, show.Lease, out)
	}
	want := "worker-0 (kubelet v1.29.4, want v1.30.1)"
	var reason string
	if err := l.db.QueryRowContext(t.Context(), `SELECT reason FROM kube_upgrade_event
		WHERE to_state = 'upgrade-completing-failed' ORDER BY id DESC LIMIT 1`).Scan(&reason); err != nil {
		t.Fatalf("no failure event of complete: %v", err)
	}
	if !strings.Contains(reason, want) || !strings.Contains(out, want) {
		t.Errorf("the failure does not name %q:\nevent: %s\nkupgrade said:\n%s", want, reason, out)
	}
	if !strings.Contains(out, "kupgrade upgrade complete") {
		t.Errorf("no retry command printed:\n%s", out)
	}
	if st := l.hostStatus(t, 0, "worker-0"); st != "upgraded-kubelet" {
		t.Errorf("worker-0 is %q after the failed verification, want upgraded-kubelet", st)
	}

	worker.ClearFault()
	restart := "sudo /usr/local/sbin/kupgrade-lab-kubelet restart" // posts its status
	if code := worker.Run(t.Context(), restart, nil, nil, &strings.Builder{}, &strings.Builder{}); code != 0 {
		t.Fatalf("%s exited %d", restart, code)
	}
	l.want(t, 0, 0, "upgrade", "run", "-y")
	if got := l.state(t, 0); got != "upgrade-complete" {
		t.Fatalf("after the retry the state is %s, want upgrade-complete", got)
	}
	if n := l.count(t, "SELECT COUNT(*) FROM kube_host_upgrade WHERE status IS NOT NULL"); n != 0 {
		t.Errorf("%d hosts keep a status after upgrade-complete, want none", n)
	}
	l.requireAt(t, 0, "v1.30.1")
}
