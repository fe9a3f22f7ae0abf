package recovery_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
)

// A kubelet batch whose runner died inside its phases: the audit fails each host in flight
// through the one path, a drain to draining-node-failed, an uncordon to uncordoning-node-failed,
// the kubelet's own phase to idle; the cluster stays in upgrading-kubelets, the lease is gone,
// and a second pass finds nothing left. Only the kubelet's host is probed for kubeadm's files:
// the drain's and the uncordon's advice is about the node.
func TestAuditFailsKubeletPhasesToTheirTwins(t *testing.T) {
	f := recoverytest.New(t)
	f.Start(t, "default")
	f.Move(t, "default", state.UpgradingKubelets, "controller-1", state.UncordoningNode, "dead:1:x", 30*time.Second)
	f.Move(t, "default", state.UpgradingKubelets, "controller-2", state.UpgradingKubelet, "", 0)
	f.Move(t, "default", state.UpgradingKubelets, "worker-1", state.DrainingNode, "", 0)
	f.Clk.Add(time.Minute)
	p := &fakeProber{findings: map[string]kubeadm.Finding{}}
	rep := audit(t, f, recovery.AuditOptions{Probers: func(string) recovery.Prober { return p }})
	if len(rep.Actions) != 3 {
		t.Fatalf("actions %+v, want one per host in flight", rep.Actions)
	}
	if len(p.calls) != 1 || p.calls[0] != "controller-2@v1.30.1" {
		t.Errorf("probed %v, want only controller-2 (upgrading-kubelet)", p.calls)
	}
	advice := map[string]kubeadm.FindingClass{"controller-1": kubeadm.FindingUncordonFailed, "worker-1": kubeadm.FindingDrainBlocked}
	for _, a := range rep.Actions {
		if want, ok := advice[a.Host]; ok && (a.Probe == nil || a.Probe.Finding == nil || a.Probe.Finding.Class != want ||
			strings.Contains(a.Probe.Finding.Next, "kubeadm upgrade")) {
			t.Errorf("%s: finding %+v, want %s with advice about the node", a.Host, a.Probe, want)
		}
	}
	want := map[string]state.HostStatus{"controller-1": state.UncordoningNodeFailed, "controller-2": state.UpgradingKubeletFailed, "worker-1": state.DrainingNodeFailed}
	for host, w := range want {
		if got := f.Status(t, "default", host); got != w {
			t.Errorf("%s status %q, want %q", host, got, w)
		}
	}
	if u := f.Upgrade(t, "default"); u.State != state.UpgradingKubelets {
		t.Errorf("state %s, want upgrading-kubelets", u.State)
	}
	if rep := audit(t, f, recovery.AuditOptions{}); len(rep.InFlight) != 0 || len(rep.Actions) != 0 {
		t.Errorf("second pass: in flight %d, actions %+v; want nothing left", len(rep.InFlight), rep.Actions)
	}
}

// recover (not the audit) fails a host left draining-node the same way, and recovering again
// changes nothing: the failed twin is not in flight.
func TestRecoverFailsADrainToItsTwin(t *testing.T) {
	f := recoverytest.New(t)
	f.Start(t, "default")
	f.Move(t, "default", state.UpgradingKubelets, "worker-1", state.DrainingNode, "dead:1:x", -time.Second)
	for range 2 {
		if _, err := recovery.Recover(t.Context(), f.St, recovery.RecoverOptions{Cluster: "default"}); err != nil {
			t.Fatal(err)
		}
		if got := f.Status(t, "default", "worker-1"); got != state.DrainingNodeFailed {
			t.Fatalf("worker-1 status %q, want draining-node-failed", got)
		}
	}
}
