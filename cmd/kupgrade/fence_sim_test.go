package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/sim"
)

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
	l.want(t, 0, 0, laptop, "upgrade", "start", "v1.30.1", "--ignore-version-checks")
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
