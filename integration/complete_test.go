//go:build integration

package integration_test

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
)

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
