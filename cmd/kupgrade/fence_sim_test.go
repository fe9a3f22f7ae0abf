package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/sim"
)

// TestSimOneKubeadmPerHost is property P1 of the host fence: a kupgrade whose kubeadm hangs loses
// its operation to an operator's `upgrade failed --force`, and the retry that follows at once
// must not start a second kubeadm next to the first: it waits on the host's fence, then fails
// saying who holds it. Once the first kupgrade is gone, a retry runs.
func TestSimOneKubeadmPerHost(t *testing.T) {
	t.Parallel()
	l := startSim(t, sim.Options{})
	c1, first := l.hangAtSecondMaster(t)
	l.want(t, 0, 0, "upgrade", "failed", "--force", "--reason", "kubeadm hangs on controller-1")
	if got := l.state(t, 0); got != "upgrading-second-master-failed" {
		t.Fatalf("after upgrade failed --force the state is %s, want upgrading-second-master-failed", got)
	}

	// The retry, while the first kubeadm still hangs: a short fence wait, so that it gives up soon.
	retry := *l
	retry.env = append(append([]string{}, l.env...), "KUPGRADE_FENCE_WAIT=1s")
	out := retry.want(t, 0, 1, "host", "upgrade", "controller-1", "control-plane")
	for _, want := range []string{"kupgrade fence:", "another kupgrade command is still running", "kubeadm upgrade (sha256:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the retry's output does not say %q:\n%s", want, out)
		}
	}
	if n := c1.RunningKubeadm(); n != 1 {
		t.Errorf("%d kubeadm run on controller-1 after the refused retry, want the first one still running", n)
	}
	if got := l.state(t, 0); got != "upgrading-second-master-failed" {
		t.Errorf("after the refused retry the state is %s, want upgrading-second-master-failed", got)
	}

	// The first kupgrade is stopped: its kubeadm ends with it, the fence is free, a retry runs.
	first.stop(syscall.SIGTERM)
	for deadline := time.Now().Add(time.Minute); c1.RunningKubeadm() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first kubeadm still runs a minute after its kupgrade ended")
		}
	}
	l.want(t, 0, 0, "host", "upgrade", "controller-1", "control-plane")
	if got := l.state(t, 0); got != "upgraded-second-master" {
		t.Errorf("after the last retry the state is %s, want upgraded-second-master", got)
	}
	if n := c1.MaxConcurrentKubeadm(); n != 1 {
		t.Errorf("at most %d kubeadm runs at once on controller-1, want 1", n)
	}
}

// One cluster, one upgrade, whatever the database: a second kupgrade with a database of its own
// (an operator's laptop beside the jump host, a forgotten --db) is refused by the host fence
// while the first's upgrade of the cluster is live, with a refusal naming the cluster's UID, the
// first's upgrade, runner and database; it changes nothing, and the first finishes. The
// simulated cluster answers kubectl's kube-system UID as the API server does.
func TestSimOneUpgradePerClusterWhateverTheDatabase(t *testing.T) {
	t.Parallel()
	l := startSim(t, sim.Options{})
	laptop := "--db=sqlite:" + filepath.Join(t.TempDir(), "laptop.db")
	l.want(t, 0, 0, "--lease-ttl", "10m", "upgrade", "start", "v1.30.1")
	l.want(t, 0, 0, "--lease-ttl", "10m", "upgrade", "run", "--until", "upgraded-first-master")
	// The laptop's operator forces the start past the checks that see the first upgrade half-way.
	l.want(t, 0, 0, laptop, "upgrade", "start", "v1.30.1", "--ignore-version-checks", "--skip-check", "control-plane")
	out := l.want(t, 0, 1, laptop, "upgrade", "run", "-y")
	first := filepath.Join(filepath.Dir(l.f.Inventories), "kupgrade.db")
	for _, want := range []string{"one cluster, one upgrade", "kube-system uid " + l.f.Clusters[0].UID(), first} {
		if !strings.Contains(out, want) {
			t.Errorf("the second kupgrade's refusal does not say %q:\n%s", want, out)
		}
	}
	if n := l.host(0, "controller-0").MaxConcurrentKubeadm(); n > 1 {
		t.Errorf("controller-0 ran %d kubeadm at once", n)
	}
	if m, _ := l.host(0, "controller-1").File("/etc/kubernetes/manifests/kube-apiserver.yaml"); !strings.Contains(m, ":v1.29.4") {
		t.Errorf("the refused kupgrade moved controller-1:\n%s", m)
	}
	l.want(t, 0, 0, "--lease-ttl", "10m", "upgrade", "run", "-y")
	l.requireAt(t, 0, "v1.30.1")
}
