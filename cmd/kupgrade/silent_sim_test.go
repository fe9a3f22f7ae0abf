package main

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/sim"
	"github.com/kupgrade/kupgrade/notify"
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

// A kubelet step that cannot start on a worker because its sudo asks for a password is that
// host's failure, recorded: an event, the host upgrading-kubelet-failed, the notification, and
// a message that says kupgrade runs `sudo -n` and wants passwordless sudo; upgrade show names
// the failure and its retry on the host, and the retry, once sudo is fixed, finishes.
func TestSimSudoPasswordBeforeTheStepIsRecorded(t *testing.T) {
	t.Parallel()
	l := startSim(t, sim.Options{})
	hook := newWebhook(t)
	l.env = append(l.env, "KUPGRADE_NOTIFY_URL="+hook.srv.URL)
	l.want(t, 0, 0, "upgrade", "start", "v1.30.1")
	l.want(t, 0, 0, "upgrade", "run", "--until", "upgraded-second-master")
	l.host(0, "worker-0").RequireSudoPassword(true)
	out := l.want(t, 0, 1, "upgrade", "run", "-y")
	if !strings.Contains(out, "sudo -n") || !strings.Contains(out, "passwordless sudo") {
		t.Errorf("the failure does not hint at passwordless sudo:\n%s", out)
	}
	if st := l.hostStatus(t, 0, "worker-0"); st != "upgrading-kubelet-failed" {
		t.Errorf("worker-0 is %q, want upgrading-kubelet-failed", st)
	}
	if n := l.count(t, `SELECT COUNT(*) FROM kube_upgrade_event WHERE hostname = 'worker-0' AND reason LIKE '%a password is required%'`); n != 1 {
		t.Errorf("%d events record the failure on worker-0, want 1", n)
	}
	if fe := hook.of(notify.Failed, l.f.Clusters[0].Name); len(fe) != 1 || fe[0].Host != "worker-0" ||
		fe[0].State != "upgrading-kubelets" || !strings.Contains(fe[0].Message, "passwordless sudo") || !strings.HasPrefix(fe[0].Next, "kupgrade ") {
		t.Errorf("failed notifications: %+v, want one of worker-0 with its retry", fe)
	}
	show := l.want(t, 0, 0, "upgrade", "show")
	if !strings.Contains(show, "last failure on worker-0") || !strings.Contains(show, "next: kupgrade host upgrade worker-0 kubelet") {
		t.Errorf("upgrade show does not name the failure and its retry:\n%s", show)
	}
	l.host(0, "worker-0").RequireSudoPassword(false)
	l.want(t, 0, 0, "host", "upgrade", "worker-0", "kubelet")
	l.want(t, 0, 0, "upgrade", "run", "-y")
	l.requireAt(t, 0, "v1.30.1")
}

// A control-plane step that cannot start on its controller (sudo asks for a password there) is
// recorded as that host's failure, the state left as it was since nothing started: an event,
// and upgrade show names it with the retry; once sudo is fixed the retry goes on.
func TestSimSudoPasswordBeforeAControlPlaneStep(t *testing.T) {
	t.Parallel()
	l := startSim(t, sim.Options{})
	l.want(t, 0, 0, "upgrade", "start", "v1.30.1")
	l.want(t, 0, 0, "upgrade", "run", "--until", "upgraded-networking")
	l.host(0, "controller-0").RequireSudoPassword(true)
	out := l.want(t, 0, 1, "host", "upgrade", "controller-0", "control-plane")
	if !strings.Contains(out, "passwordless sudo") || l.state(t, 0) != "upgraded-networking" {
		t.Errorf("state %s, want upgraded-networking and a hint at passwordless sudo:\n%s", l.state(t, 0), out)
	}
	show := l.want(t, 0, 0, "upgrade", "show")
	if !strings.Contains(show, "last failure on controller-0") || !strings.Contains(show, "a password is required") {
		t.Errorf("upgrade show does not name the failure:\n%s", show)
	}
	l.host(0, "controller-0").RequireSudoPassword(false)
	l.want(t, 0, 0, "upgrade", "run", "-y")
	if show := l.want(t, 0, 0, "upgrade", "show"); strings.Contains(show, "last failure") {
		t.Errorf("upgrade show still names a failure the retry resolved:\n%s", show)
	}
	l.requireAt(t, 0, "v1.30.1")
}

// A worker unreachable before its kubelet step starts is that host's failure, recorded: the
// host upgrading-kubelet-failed with its event, exit 5 (unreachable) as before, upgrade show
// names it with its retry; reachable again, the retry finishes.
func TestSimUnreachableBeforeTheStepIsRecorded(t *testing.T) {
	t.Parallel()
	l := startSim(t, sim.Options{})
	l.want(t, 0, 0, "upgrade", "start", "v1.30.1")
	l.want(t, 0, 0, "upgrade", "run", "--until", "upgraded-second-master")
	l.host(0, "worker-0").SetUnreachable(true)
	l.want(t, 0, 5, "upgrade", "run", "-y")
	if st := l.hostStatus(t, 0, "worker-0"); st != "upgrading-kubelet-failed" {
		t.Errorf("worker-0 is %q, want upgrading-kubelet-failed", st)
	}
	show := l.want(t, 0, 0, "upgrade", "show")
	if !strings.Contains(show, "last failure on worker-0") || !strings.Contains(show, "unreachable") ||
		!strings.Contains(show, "next: kupgrade host upgrade worker-0 kubelet") {
		t.Errorf("upgrade show does not name the failure and its retry:\n%s", show)
	}
	l.host(0, "worker-0").SetUnreachable(false)
	l.want(t, 0, 0, "upgrade", "run", "-y")
	l.requireAt(t, 0, "v1.30.1")
}
