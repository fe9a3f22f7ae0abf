package main

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/sim"
)

// TestSimOneOperationAtATime holds the second controller's control-plane step in a hanging
// kubeadm and checks that nothing else starts an operation on the cluster meanwhile: first two
// `host upgrade` commands started together, then a kupgrade killed with SIGKILL whose lease
// outlives it, which recover fails through the one recovery path once the lease has expired.
func TestSimOneOperationAtATime(t *testing.T) {
	t.Parallel()
	l := startSim(t, sim.Options{})
	// Long enough that the refused commands below surely run under the dead process's lease;
	// its expiry is then moved to the past in the database (expireLease), not waited for.
	const ttl = time.Minute
	l.env = append(l.env, "KUPGRADE_LEASE_TTL="+ttl.String())
	l.want(t, 0, 0, "upgrade", "start", "v1.30.1")
	l.want(t, 0, 0, "upgrade", "run", "--until", "upgraded-first-master")
	c1 := l.host(0, "controller-1")
	if !t.Run("two host upgrades at once", func(t *testing.T) { twoAtOnce(t, l, c1) }) {
		return
	}
	t.Run("SIGKILL mid kubeadm upgrade node", func(t *testing.T) { killedHolder(t, l, c1, ttl) })
}

// twoAtOnce starts two `host upgrade` of the hanging controller together: one runs (and fails
// on the hang, exit 1), the other finds it running (exit 4).
func twoAtOnce(t *testing.T, l *simLab, c1 *sim.Host) {
	if err := c1.InjectFault(sim.Fault{Phase: "control-plane", Action: sim.Hang, Once: true}); err != nil {
		t.Fatal(err)
	}
	args := []string{"--kubeadm-timeout", "2s", "host", "upgrade", "controller-1", "control-plane"}
	both := []*background{l.start(t, 0, args...), l.start(t, 0, args...)}
	codes := []int{both[0].wait(), both[1].wait()}
	slices.Sort(codes)
	if !slices.Equal(codes, []int{1, 4}) {
		t.Errorf("exit statuses %v, want one 1 (ran, hung, timed out) and one 4 (conflict):\n%s\n---\n%s", codes, both[0].out, both[1].out)
	}
	started := l.count(t, `SELECT COUNT(*) FROM kube_upgrade_event WHERE to_state = 'upgrading-second-master'`)
	if started != 1 {
		t.Errorf("%d events started upgrading-second-master, want exactly 1", started)
	}
	if got := l.state(t, 0); got != "upgrading-second-master-failed" {
		t.Errorf("state %s, want upgrading-second-master-failed", got)
	}
	if n := c1.RunningKubeadm(); n != 0 {
		t.Errorf("%d kubeadm still run on controller-1 after both commands ended", n)
	}
}

// killedHolder kills a kupgrade in the middle of kubeadm: while its lease lives every command
// that would start an operation is refused and writes nothing; once it has expired, recover
// fails the operation, clears the host status, and the retry runs.
func killedHolder(t *testing.T, l *simLab, c1 *sim.Host, ttl time.Duration) {
	if err := c1.InjectFault(sim.Fault{Phase: "control-plane", Action: sim.Hang, Once: true}); err != nil {
		t.Fatal(err)
	}
	up := l.start(t, 0, "host", "upgrade", "controller-1", "control-plane")
	waitForHang(t, c1, up)
	up.stop(syscall.SIGKILL)
	show := l.show(t, 0)
	if show.State != "upgrading-second-master" || show.Lease == nil || !strings.Contains(show.Lease.Operation, "controller-1") {
		t.Fatalf("after SIGKILL: state %s, lease %+v; want upgrading-second-master under the dead process's lease", show.State, show.Lease)
	}
	if st := l.hostStatus(t, 0, "controller-1"); st != "upgrading-control-plane" {
		t.Errorf("controller-1 status %q under the live lease, want upgrading-control-plane", st)
	}
	before := l.image(t)
	for _, args := range [][]string{{"host", "upgrade", "controller-1", "control-plane"}, {"upgrade", "networking"}, {"recover"}} {
		l.want(t, 0, 4, args...)
	}
	if time.Now().After(show.Lease.ExpiresAt) {
		t.Fatalf("the lease (TTL %s) expired before the refused commands were done: the checks above did not run under it", ttl)
	}
	if after := l.image(t); after != before {
		t.Errorf("a refused command wrote to the database:\nbefore %s\nafter  %s", before, after)
	}
	l.expireLease(t)
	l.want(t, 0, 0, "recover")
	if got := l.show(t, 0); got.State != "upgrading-second-master-failed" || got.Lease != nil {
		t.Errorf("after recover: state %s, lease %+v; want upgrading-second-master-failed, no lease", got.State, got.Lease)
	}
	if st := l.hostStatus(t, 0, "controller-1"); st != "" {
		t.Errorf("controller-1 status %q after recover, want NULL", st)
	}
	if f := l.newestFailure(t); f.Actor != "recover" || f.FromHostStatus != "upgrading-control-plane" {
		t.Errorf("newest failure %+v, want recover clearing upgrading-control-plane", f)
	}
	l.want(t, 0, 0, "host", "upgrade", "controller-1", "control-plane")
	if got := l.state(t, 0); got != "upgraded-second-master" {
		t.Errorf("after the retry the state is %s, want upgraded-second-master", got)
	}
}
