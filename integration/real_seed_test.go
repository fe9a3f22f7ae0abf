//go:build integration

package integration_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestRealSeed: the seed on a real kubeadm. On one real 2+1 upgrade: kubeadm upgrade apply hangs
// inside its real control-plane phase (the kubelet frozen, so the new kube-apiserver never
// comes up) past --kubeadm-timeout; kupgrade is SIGKILLed while the real kubeadm upgrade node
// runs on controller-1, and recover fails the step; then kubeadm upgrade node on controller-1
// fails after its real kubelet-config phase rewrote /var/lib/kubelet/config.yaml. Each ends
// *-failed with its classified finding, the retries complete, and kubectl sees a healthy
// cluster at the new version.
func TestRealSeed(t *testing.T) {
	u := startRealLab(t)
	to := lab.RealToVersion
	u.k.wantExit(t, 0, "upgrade", "start", to)
	u.k.wantExit(t, 0, "upgrade", "run", "--until", "upgraded-networking")
	captureReal(t, u.lab.Node("controller-0"), "controller-0-before")
	captureReal(t, u.lab.Node("controller-1"), "controller-1-before")
	steps := []struct {
		name  string
		run   func(t *testing.T)
		after string
	}{
		{"hang in the real control-plane phase past --kubeadm-timeout", func(t *testing.T) {
			u.failOnly(t, failure{host: "controller-0", class: "swapping-manifests",
				fault: lab.Fault{Phase: "control-plane", Before: true, Action: lab.Hang, Once: true},
				flags: []string{"--kubeadm-timeout", "75s"}}, "upgrading-first-master")
			captureReal(t, u.lab.Node("controller-0"), "controller-0-hung-in-control-plane")
			thawKubelet(t, u.lab, u.lab.Node("controller-0"))
			u.retryControlPlane(t, "controller-0")
		}, "upgraded-first-master"},
		// First, while controller-1's kubeadm upgrade node still has its control plane to swap
		// (tens of seconds of real work): a retry after the seed would end in seconds.
		{"SIGKILL of kupgrade while the real kubeadm upgrade node runs", func(t *testing.T) {
			u.killDuringKubeadm(t, "controller-1", "upgrading-second-master")
		}, "upgrading-second-master-failed"},
		{"seed: real kubeadm upgrade node fails after kubelet-config", func(t *testing.T) {
			u.failOnly(t, failure{host: "controller-1", class: "kubelet-config-rewritten",
				fault: lab.Fault{Phase: "kubelet-config", Action: lab.Exit, Status: 1, Once: true}}, "upgrading-second-master")
			requireConfigBackup(t, u.lab.Node("controller-1"))
			captureReal(t, u.lab.Node("controller-1"), "controller-1-after-kubelet-config")
			u.k.wantExit(t, 0, "host", "upgrade", "controller-1", "control-plane")
		}, "upgraded-second-master"},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			t.FailNow()
		}
		if got := u.k.show(t).State; got != s.after {
			t.Fatalf("after %q the state is %s, want %s", s.name, got, s.after)
		}
	}
	u.k.wantExit(t, 0, "upgrade", "run")
	if got := u.k.show(t).State; got != "upgrade-complete" {
		t.Fatalf("after upgrade run the state is %s, want upgrade-complete", got)
	}
	requireVersions(t, u.lab, to)
	requireRealCluster(t, u.lab, to)
	for _, n := range u.lab.Nodes() {
		captureReal(t, n, n.Name+"-upgraded")
	}
}

// failOnly runs the control-plane step of f.host with f's fault armed and checks what
// failThenRetry checks before its retry.
func (u *labUnderTest) failOnly(t *testing.T, f failure, running string) {
	t.Helper()
	node := u.lab.Node(f.host)
	injectFault(t, node, f.fault)
	out := u.k.wantExit(t, 1, append(append([]string{}, f.flags...), "host", "upgrade", f.host, "control-plane")...)
	if got := u.k.show(t).State; got != running+"-failed" {
		t.Errorf("state %s, want %s-failed", got, running)
	}
	if show := u.k.show(t); show.Lease != nil {
		t.Errorf("lease %+v still held after the failure was recorded", *show.Lease)
	}
	if st := u.k.hostStatus(t, f.host); st != "" {
		t.Errorf("%s status %q after the failure, want NULL so that the retry is accepted", f.host, st)
	}
	ev := newestFailure(t, u.db)
	if ev.ToState != running+"-failed" || ev.Class != f.class {
		t.Errorf("newest failure goes to %s with class %q, want %s-failed with %q; kupgrade said:\n%s", ev.ToState, ev.Class, running, f.class, out)
	}
	requireNoKubeadm(t, node)
}

// requireConfigBackup checks that the real kubelet-config phase left its backup of the old
// config.yaml where the probe looks for it.
func requireConfigBackup(t *testing.T, n *lab.Node) {
	t.Helper()
	out, err := n.Exec(t.Context(), "sh", "-c", "ls -d /etc/kubernetes/tmp/kubeadm-kubelet-config*/config.yaml")
	if err != nil || strings.TrimSpace(out) == "" {
		t.Errorf("no kubeadm-kubelet-config*/config.yaml backup on %s after the kubelet-config phase: %v", n.Name, err)
	}
}

// killDuringKubeadm starts the control-plane step of host with a short lease, SIGKILLs kupgrade
// once the real kubeadm runs on the host, waits for the lease to expire, and checks that recover
// fails the step with a finding.
func (u *labUnderTest) killDuringKubeadm(t *testing.T, host, running string) {
	t.Helper()
	node := u.lab.Node(host)
	up, upOut := u.k.cmd(t.Context(), "--lease-ttl", "10s", "host", "upgrade", host, "control-plane")
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if _, ok := pgrep(t, node, "kupgrade-real/kubeadm upgrade"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the real kubeadm never ran on %s:\n%s", host, upOut)
		}
	}
	time.Sleep(5 * time.Second) // well inside kubeadm's phases
	if err := up.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	up.Wait()
	// Unlike the simulated one, the real kubeadm does not die with the SSH session: it goes on
	// (until a write to the gone session's pipe kills it), still holding the host's fence. The
	// retry below waits for the fence, so it never runs beside it.
	if ps, ok := pgrep(t, node, "kupgrade-real/kubeadm upgrade"); ok {
		t.Logf("the real kubeadm outlived kupgrade's SIGKILL on %s:\n%s", host, ps)
	}
	time.Sleep(12 * time.Second) // the dead process's lease expires
	u.k.wantExit(t, 0, "recover")
	if got := u.k.show(t).State; got != running+"-failed" {
		t.Fatalf("after SIGKILL and recover the state is %s, want %s-failed", got, running)
	}
	ev := newestFailure(t, u.db)
	if ev.Actor != "recover" || ev.Class == "" {
		t.Errorf("newest failure by %s with class %q, want recover with a finding", ev.Actor, ev.Class)
	}
	t.Logf("SIGKILL mid kubeadm upgrade node: recover classified it %q", ev.Class)
	// The real kubeadm the SIGKILL orphaned ends on its own (its work done, or a write to the
	// gone session's pipe): the seed below starts from what it left.
	start := time.Now()
	for deadline := start.Add(5 * time.Minute); ; time.Sleep(time.Second) {
		if _, ok := pgrep(t, node, "kupgrade-real/kubeadm upgrade"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the orphaned real kubeadm still runs on %s 5 minutes after the SIGKILL", host)
		}
	}
	t.Logf("the orphaned real kubeadm on %s ended %s after recover", host, time.Since(start).Round(time.Second))
}

// captureReal saves what the probe reads on n (manifests, kubeadm's folders under
// /etc/kubernetes/tmp, the kubelet config) and the outputs the lab's kubeadm kept, as
// $KUPGRADE_REAL_CAPTURE/<name>.tar, when that is set: kubeadm/testdata/real comes from there.
func captureReal(t *testing.T, n *lab.Node, name string) {
	t.Helper()
	dir := os.Getenv("KUPGRADE_REAL_CAPTURE")
	if dir == "" {
		return
	}
	out, err := n.Exec(t.Context(), "tar", "--ignore-failed-read", "-C", "/", "-cf", "-", "etc/kubernetes/manifests", "etc/kubernetes/tmp",
		"var/lib/kubelet/config.yaml", "var/log/kupgrade-real")
	// tar exits 1 when a file changed while it read it (a kubeadm that was just killed may
	// still be going): the capture is still what the node holds, and says so.
	var ee *lab.ExitError
	if errors.As(err, &ee) && ee.Status == 1 {
		t.Logf("capture %s on %s: %s", name, n.Name, strings.TrimSpace(ee.Stderr))
	} else if err != nil {
		t.Errorf("capture %s on %s: %v", name, n.Name, err)
		return
	}
	if err := os.MkdirAll(dir, 0o755); err == nil {
		err = os.WriteFile(filepath.Join(dir, name+".tar"), []byte(out), 0o644)
	}
	if err != nil {
		t.Errorf("capture %s: %v", name, err)
	}
}

// thawKubelet is the operator fixing the hang's cause: the frozen kubelet runs again, and the
// retry waits until the API answers through controller-0 (the control-plane endpoint), whose
// kube-apiserver the kubelet had stopped when it was frozen. A retry at once fails kubeadm's
// preflight (it reads the CoreDNS ConfigMap through that endpoint): the real lab showed it.
func thawKubelet(t *testing.T, l *lab.Lab, n *lab.Node) {
	t.Helper()
	if _, err := n.Exec(t.Context(), "sh", "-c", "pkill -CONT -x kubelet; rm -f /run/kupgrade-real/kubelet.frozen"); err != nil {
		t.Fatalf("thaw the kubelet on %s: %v", n.Name, err)
	}
	for deadline := time.Now().Add(4 * time.Minute); ; time.Sleep(2 * time.Second) {
		out, err := l.KubectlRun(t.Context(), "get", "--raw", "/readyz")
		if err == nil && strings.TrimSpace(out) == "ok" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("API not ready 4 minutes after the kubelet on %s was thawed: %v %s", n.Name, err, out)
		}
	}
}

// retryControlPlane retries host's control-plane step. Right after the thaw, kubeadm's own
// preflight health check (a Job that must complete within 15 s) can fail while the restarted
// controller-manager and scheduler wait out the old leader leases: the step itself runs kubeadm
// again on that failure (control-plane.yml), and the test says when it did.
func (u *labUnderTest) retryControlPlane(t *testing.T, host string) {
	t.Helper()
	code, out := u.k.exit(t, "host", "upgrade", host, "control-plane")
	if code != 0 {
		t.Fatalf("retry of %s's control-plane step exited %d:\n%s", host, code, out)
	}
	if strings.Contains(out, "[ERROR CreateJob]") {
		t.Logf("kubeadm's preflight health check failed on %s; the step ran kubeadm again", host)
	}
}
