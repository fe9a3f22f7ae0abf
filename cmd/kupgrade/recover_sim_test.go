package main

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/sim"
)

// TestSimWatchFailsKilledUpgradeAndRetrySucceeds: kupgrade is SIGKILLed while kubeadm upgrade
// node hangs on controller-1, past its control-plane phase, and a watcher runs: the state becomes
// upgrading-second-master-failed by watch, with the probe's evidence (the kubelet configuration
// already rewritten), the host status is cleared, and the retry succeeds.
func TestSimWatchFailsKilledUpgradeAndRetrySucceeds(t *testing.T) {
	t.Parallel()
	l := startSim(t, sim.Options{})
	c1, up := l.hangAtSecondMaster(t)
	for _, comp := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		if m, _ := c1.File("/etc/kubernetes/manifests/" + comp + ".yaml"); !strings.Contains(m, ":v1.30.1\n") {
			t.Fatalf("kubeadm hangs after its control-plane phase with %s's manifest:\n%s", comp, m)
		}
	}
	up.stop(syscall.SIGKILL)
	l.expireLease(t) // as if the dead runner's TTL had passed

	watch := l.start(t, 0, "watch", "--interval", "200ms", "-o", "json")
	for deadline := time.Now().Add(time.Minute); l.state(t, 0) != "upgrading-second-master-failed"; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("state still %s a minute after SIGKILL; watch said:\n%s", l.state(t, 0), watch.out)
		}
	}
	watch.stop(syscall.SIGTERM)
	if code := watch.wait(); code != 0 {
		t.Errorf("watch after SIGTERM exited %d, want 0:\n%s", code, watch.out)
	}
	l.requireWatchFailed(t, watch.out.String())
	l.want(t, 0, 0, "--kubeadm-timeout", "1m", "host", "upgrade", "controller-1", "control-plane")
	if got := l.state(t, 0); got != "upgraded-second-master" {
		t.Errorf("after the retry the state is %s, want upgraded-second-master", got)
	}
}

// requireWatchFailed checks the failure watch recorded: by watch, clearing the host status, on
// the lease's expiry, with the probe's finding about the kubelet's configuration.
func (l *simLab) requireWatchFailed(t *testing.T, watchOut string) {
	t.Helper()
	var actor, fromHost, evidence string
	err := l.db.QueryRowContext(t.Context(), `SELECT actor, COALESCE(from_host_status, ''), COALESCE(evidence, '')
		FROM kube_upgrade_event WHERE to_state = 'upgrading-second-master-failed' ORDER BY id DESC LIMIT 1`).Scan(&actor, &fromHost, &evidence)
	if err != nil {
		t.Fatal(err)
	}
	if actor != "watch" || fromHost != "upgrading-control-plane" {
		t.Errorf("failure event by %s clearing %q, want watch clearing upgrading-control-plane", actor, fromHost)
	}
	var ev struct {
		DetectedBy string `json:"detected_by"`
		Finding    *struct {
			Summary string `json:"summary"`
		} `json:"finding"`
	}
	if err := json.Unmarshal([]byte(evidence), &ev); err != nil {
		t.Fatalf("evidence %s: %v", evidence, err)
	}
	if ev.DetectedBy != "lease-expired" || ev.Finding == nil || !strings.Contains(ev.Finding.Summary, "/var/lib/kubelet/config.yaml") {
		t.Errorf("evidence %s: want lease-expired with the probe's finding about config.yaml", evidence)
	}
	if !strings.Contains(watchOut, `"event":"audit"`) {
		t.Errorf("watch printed no audit event:\n%s", watchOut)
	}
	if st := l.hostStatus(t, 0, "controller-1"); st != "" {
		t.Errorf("controller-1 status %q after watch failed the operation, want NULL", st)
	}
}
