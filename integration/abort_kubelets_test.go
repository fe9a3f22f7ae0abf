//go:build integration

package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestAbortTakesKubeletsBack proves `upgrade abort --kubelets` in the simulated lab, after every
// kubelet was upgraded to v1.30.1 under a budget: abort without --kubelets refuses, naming the
// kubelets and saying what --kubelets does; with it, a SIGKILL while worker-0's kubelet goes back
// (held inside apt's download, the host downgrading-kubelet) leaves the database consistent,
// `recover` fails it like any other operation (upgrade-aborting-failed, worker-0 idle), and the
// next abort --kubelets ends upgrade-aborted: every controller and kubelet at the starting
// version, kubeadm, kubelet and kubectl held at it with the source naming its minor on every
// node, no node left cordoned, and the budget never broken.
func TestAbortTakesKubeletsBack(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1})
	u.k.env = append(u.k.env, "KUPGRADE_LEASE_TTL=2s")
	ctx := t.Context()
	web := lab.Deployment{Name: "web", Replicas: 3, MinAvailable: 2, Nodes: []string{"controller-0", "controller-1", "worker-0"}}
	if err := u.lab.Deploy(ctx, web); err != nil {
		t.Fatal(err)
	}
	u.begin(t, "v1.30.1", "upgraded-second-master")
	for _, h := range []string{"controller-0", "controller-1", "worker-0"} {
		u.k.wantExit(t, 0, "host", "upgrade", h, "kubelet")
	}
	out := u.k.wantExit(t, 3, "upgrade", "abort", "-y")
	for _, s := range []string{"worker-0 at v1.30.1", "newer than their API server", "upgrade abort --kubelets", "drains the node"} {
		if !strings.Contains(out, s) {
			t.Errorf("the refusal lacks %q:\n%s", s, out)
		}
	}
	low := sampleHealthy(t, u.lab, web)
	if err := u.lab.Node("worker-0").InjectFault(ctx, lab.Fault{Phase: "apt-download", Action: lab.Delay, Seconds: 60, Once: true}); err != nil {
		t.Fatal(err)
	}
	cmd, wait := u.k.start(t, "upgrade", "abort", "--kubelets", "-y")
	u.waitHostStatus(t, "worker-0", "downgrading-kubelet", 3*time.Minute)
	_ = cmd.Process.Kill()
	wait()
	if !u.consistentAfterKill(t, 0, 0) || !inFlight(t, u.db) {
		t.Fatalf("kill while worker-0's kubelet went back: the database is not as the kill left it")
	}
	time.Sleep(2500 * time.Millisecond) // the dead runner's lease expires
	u.k.wantExit(t, 0, "recover")
	if got := u.k.show(t).State; got != "upgrade-aborting-failed" {
		t.Fatalf("after recover the state is %s, want upgrade-aborting-failed", got)
	}
	if st := u.k.hostStatus(t, "worker-0"); st != "" {
		t.Errorf("after recover worker-0 is %q, want idle", st)
	}
	if err := u.lab.Node("worker-0").ClearFault(ctx); err != nil {
		t.Fatal(err)
	}
	u.k.wantExit(t, 0, "upgrade", "abort", "--kubelets", "-y")
	u.wantAborted(t)
	requirePackages(t, u.lab, strings.TrimPrefix(lab.DefaultVersion, "v")+"-1.1", lab.DefaultVersion[:strings.LastIndex(lab.DefaultVersion, ".")])
	for _, n := range u.lab.Nodes() {
		if got, err := u.lab.Cordoned(ctx, n.Name); err != nil || got {
			t.Errorf("%s cordoned = %v (%v) after the abort, want false", n.Name, got, err)
		}
	}
	if n := low(); n < web.MinAvailable {
		t.Errorf("web had %d healthy pods at a moment of the abort, below its budget's %d", n, web.MinAvailable)
	}
	for _, h := range eventHoles(t, u.db) {
		t.Errorf("event log hole: %s", h)
	}
}
