package main

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/sim"
)

// A worker's kubelet step that fails leaves the host upgrading-kubelet-failed (StarlingX's name)
// while the cluster stays upgrading-kubelets, and it is flagged: upgrade list says FAILED with
// the host, upgrade show prints the failure and the retry on the host. recover finds nothing in
// flight, and the retry (the same command) takes the host from its failed status to the end.
func TestSimWorkerKubeletFailedIsFlagged(t *testing.T) {
	t.Parallel()
	l := startSim(t, sim.Options{})
	l.want(t, 0, 0, "upgrade", "start", "v1.30.1")
	l.want(t, 0, 0, "upgrade", "run", "--until", "upgraded-second-master")
	if err := l.host(0, "worker-0").InjectFault(sim.Fault{Phase: "preflight", Before: true, Action: sim.Exit, Once: true}); err != nil {
		t.Fatal(err)
	}
	l.want(t, 0, 1, "upgrade", "run", "-y")
	if st := l.hostStatus(t, 0, "worker-0"); st != "upgrading-kubelet-failed" || l.state(t, 0) != "upgrading-kubelets" {
		t.Fatalf("worker-0 is %q in %s, want upgrading-kubelet-failed in upgrading-kubelets", st, l.state(t, 0))
	}
	if out := l.want(t, 0, 0, "upgrade", "list"); !strings.Contains(out, "FAILED: worker-0 (upgrading-kubelet-failed)") {
		t.Errorf("upgrade list does not flag worker-0:\n%s", out)
	}
	show := l.want(t, 0, 0, "upgrade", "show")
	for _, want := range []string{"failed_hosts       worker-0 (upgrading-kubelet-failed)", "last failure on worker-0", "next: kupgrade host upgrade worker-0 kubelet"} {
		if !strings.Contains(show, want) {
			t.Errorf("upgrade show lacks %q:\n%s", want, show)
		}
	}
	l.want(t, 0, 0, "recover")
	l.want(t, 0, 0, "host", "upgrade", "worker-0", "kubelet")
	if st := l.hostStatus(t, 0, "worker-0"); st != "upgraded-kubelet" {
		t.Errorf("after the retry worker-0 is %q, want upgraded-kubelet", st)
	}
	l.want(t, 0, 0, "upgrade", "run", "-y")
	l.requireAt(t, 0, "v1.30.1")
}

// hostStatus is host's kube_host_upgrade.status in cluster i ("" for NULL).
func (c *simLab) hostStatus(t *testing.T, i int, host string) string {
	t.Helper()
	var st string
	err := c.db.QueryRowContext(t.Context(), `SELECT COALESCE(k.status, '') FROM kube_host_upgrade k JOIN host h ON h.id = k.host_id
		WHERE h.cluster = ? AND h.hostname = ?`, c.f.Clusters[i].Name, host).Scan(&st)
	if err != nil {
		t.Fatalf("read the status of %s: %v", host, err)
	}
	return st
}
