//go:build integration

package integration_test

import (
	"strings"
	"syscall"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestOneKubeadmPerHost is property P1 of the host fence: a kupgrade whose kubeadm hangs loses its
// operation to an operator's `upgrade failed --force`, and the retry that follows at once must not
// start a second kubeadm next to the first: it waits on the host's fence, then fails saying who
// holds it. Once the first kupgrade is gone, a retry runs.
func TestOneKubeadmPerHost(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2})
	u.begin(t, "v1.30.1", "upgraded-first-master")
	c1 := u.lab.Node("controller-1")

	injectFault(t, c1, lab.Fault{Phase: "control-plane", Action: lab.Hang, Once: true})
	first, firstOut := u.k.cmd(t.Context(), "host", "upgrade", "controller-1", "control-plane")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			_ = first.Process.Signal(syscall.SIGTERM)
			_ = first.Wait()
		}
	}
	t.Cleanup(stop)
	waitForHang(t, c1, firstOut)

	u.k.wantExit(t, 0, "upgrade", "failed", "--force", "--reason", "kubeadm hangs on controller-1")
	if got := u.k.show(t).State; got != "upgrading-second-master-failed" {
		t.Fatalf("after upgrade failed --force the state is %s, want upgrading-second-master-failed", got)
	}

	// The retry, while the first kubeadm still hangs: a short fence wait, so that it gives up soon.
	retry := &kupgrade{bin: u.k.bin, env: append(append([]string{}, u.k.env...), "KUPGRADE_FENCE_WAIT=3s")}
	code, out := retry.exit(t, "host", "upgrade", "controller-1", "control-plane")
	t.Logf("the retry said:\n%s", out)
	if max, err := c1.KubeadmMaxConcurrent(t.Context()); err != nil || max != 1 {
		t.Errorf("at most %d kubeadm runs at once on controller-1 (%v), want 1", max, err)
	}
	if code != 1 {
		t.Fatalf("the retry exited %d, want 1 (refused by the host's fence)", code)
	}
	for _, want := range []string{"kupgrade fence:", "another kupgrade command is still running", "kubeadm upgrade (sha256:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the retry's output does not say %q:\n%s", want, out)
		}
	}
	if _, ok := pgrep(t, c1, "kubeadm upgrade"); !ok {
		t.Errorf("the first kubeadm is gone although nothing stopped it; kupgrade said:\n%s", firstOut)
	}
	if got := u.k.show(t).State; got != "upgrading-second-master-failed" {
		t.Errorf("after the refused retry the state is %s, want upgrading-second-master-failed", got)
	}

	// The first kupgrade is stopped: its kubeadm ends with it, the fence is free, a retry runs.
	stop()
	requireNoKubeadm(t, c1)
	u.k.wantExit(t, 0, "host", "upgrade", "controller-1", "control-plane")
	if got := u.k.show(t).State; got != "upgraded-second-master" {
		t.Errorf("after the last retry the state is %s, want upgraded-second-master", got)
	}
	if max, err := c1.KubeadmMaxConcurrent(t.Context()); err != nil || max != 1 {
		t.Errorf("at most %d kubeadm runs at once on controller-1 (%v), want 1", max, err)
	}
}
