package main

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/killcheck"
	"github.com/kupgrade/kupgrade/internal/sim"
)

// A control-plane step whose kubeadm fails, in each way the lab's faults make it fail, ends in
// its state's failed twin with the host status cleared and no lease left, the failure event
// names what the probe found, kupgrade prints the retry, and the retry finishes the upgrade: the
// seed's promise, on simulated clusters (one each, side by side, in milliseconds). The Docker
// lab proves the same on sshd, sudo and bash (TestUpgradeTwoControllers).
func TestSimFailThenRetry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, host, class string
		fault             sim.Fault
		flags             []string
	}{
		{"fault in preflight", "controller-0", "preflight", sim.Fault{Phase: "preflight", Before: true, Action: sim.Exit, Once: true}, nil},
		{"seed: exit 1 after kubelet-config", "controller-1", "kubelet-config-rewritten", sim.LateFault, nil},
		{"connection dropped after control-plane", "controller-0", "control-plane-done", sim.Fault{Phase: "control-plane", Action: sim.Drop, Once: true}, nil},
		{"hang after control-plane past the timeout", "controller-1", "control-plane-done",
			sim.Fault{Phase: "control-plane", Action: sim.Hang, Once: true}, []string{"--kubeadm-timeout", "2s"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l := startSim(t, sim.Options{})
			running, done := "upgrading-first-master", "upgraded-first-master"
			until := "upgraded-networking"
			if c.host == "controller-1" {
				running, done, until = "upgrading-second-master", "upgraded-second-master", "upgraded-first-master"
			}
			l.want(t, 0, 0, "upgrade", "start", "v1.30.1")
			l.want(t, 0, 0, "upgrade", "run", "--until", until)
			if err := l.host(0, c.host).InjectFault(c.fault); err != nil {
				t.Fatal(err)
			}
			out := l.want(t, 0, 1, append(c.flags, "host", "upgrade", c.host, "control-plane")...)
			l.requireFailed(t, running, c.host, c.class, out)
			l.want(t, 0, 0, "host", "upgrade", c.host, "control-plane")
			if got := l.state(t, 0); got != done {
				t.Errorf("after the retry the state is %s, want %s", got, done)
			}
			l.want(t, 0, 0, "upgrade", "run", "-y")
			l.requireAt(t, 0, "v1.30.1")
		})
	}
}

// requireFailed checks what a failed control-plane step of host leaves: the failed twin of
// running, the host status cleared, no lease, the finding of class in the failure's event and
// the retry command in what kupgrade printed.
func (l *simLab) requireFailed(t *testing.T, running, host, class, out string) {
	t.Helper()
	if got := l.state(t, 0); got != running+"-failed" {
		t.Errorf("state %s, want %s-failed", got, running)
	}
	if n := l.count(t, "SELECT COUNT(*) FROM upgrade_lease"); n != 0 {
		t.Errorf("%d lease(s) still held after the failure was recorded", n)
	}
	if n := l.count(t, "SELECT COUNT(*) FROM kube_host_upgrade WHERE status IS NOT NULL"); n != 0 {
		t.Errorf("%d host status(es) left after the failure, want none so that the retry is accepted", n)
	}
	f, err := killcheck.NewestFailure(t.Context(), l.db)
	if err != nil {
		t.Fatal(err)
	}
	if f.ToState != running+"-failed" || f.FromHostStatus != "upgrading-control-plane" || f.Class != class {
		t.Errorf("newest failure %+v, want to %s-failed clearing upgrading-control-plane, finding %s", f, running, class)
	}
	if !strings.Contains(out, "kupgrade host upgrade "+host+" control-plane") {
		t.Errorf("kupgrade did not print the command to retry:\n%s", out)
	}
}

// A cluster of one controller upgrades without second-master: no event ever enters it, and
// every host ends at the target with no status left.
func TestSimUpgradeOneController(t *testing.T) {
	t.Parallel()
	l := startSim(t, sim.Options{Controllers: 1})
	l.want(t, 0, 0, "upgrade", "start", "v1.30.1")
	out := l.want(t, 0, 0, "upgrade", "run", "-y")
	if strings.Contains(out, "second-master") {
		t.Errorf("a one-controller upgrade went through second-master:\n%s", out)
	}
	if got := l.state(t, 0); got != "upgrade-complete" {
		t.Errorf("state %s, want upgrade-complete", got)
	}
	if n := l.count(t, "SELECT COUNT(*) FROM kube_upgrade_event WHERE to_state = 'upgrading-second-master'"); n != 0 {
		t.Errorf("%d events entered upgrading-second-master on a one-controller system", n)
	}
	if n := l.count(t, "SELECT COUNT(*) FROM kube_host_upgrade WHERE status IS NOT NULL"); n != 0 {
		t.Errorf("%d hosts keep a status after upgrade-complete, want none", n)
	}
	l.requireAt(t, 0, "v1.30.1")
}
