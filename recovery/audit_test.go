package recovery_test

import (
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
)

func audit(t *testing.T, f *recoverytest.Fixture, opts recovery.AuditOptions) recovery.AuditReport {
	t.Helper()
	rep, err := recovery.Audit(t.Context(), f.St, opts)
	if err != nil {
		t.Fatalf("audit: %v", err)
	}
	return rep
}

// An expired lease means the owner died: failed at the next pass, however young the state.
func TestAuditFailsExpiredLeaseWhateverTheAge(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after time.Duration // clock moves after the 30 s lease was taken
	}{
		{"just expired, state 31s old", 31 * time.Second},
		{"state days old", 72 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := recoverytest.New(t)
			f.Start(t, "default")
			f.Move(t, "default", state.UpgradingSecondMaster, "controller-2", state.UpgradingControlPlane, "dead:1:x", 30*time.Second)
			f.Clk.Add(tc.after)
			rep := audit(t, f, recovery.AuditOptions{StaleAfter: time.Hour})

			if len(rep.Actions) != 1 || rep.Actions[0].Outcome != recovery.OutcomeFailed || rep.Actions[0].Why != recovery.WhyLeaseExpired {
				t.Fatalf("actions = %+v, want one failed for lease-expired", rep.Actions)
			}
			u := f.Upgrade(t, "default")
			if u.State != state.UpgradingSecondMasterFailed || u.RecoveryAttempts != 1 {
				t.Errorf("state %s attempts %d, want upgrading-second-master-failed, 1", u.State, u.RecoveryAttempts)
			}
			if s := f.Status(t, "default", "controller-2"); s != state.HostIdle {
				t.Errorf("controller-2 status %q, want cleared", s)
			}
			if l := f.Lease(t, "default"); l != nil {
				t.Errorf("lease %+v left behind", l)
			}
			ev := f.Events(t, "default")[0]
			if ev.Actor != state.ActorWatch || ev.FromHostStatus != state.UpgradingControlPlane || ev.Hostname != "controller-2" {
				t.Errorf("event %+v: want actor watch clearing controller-2's upgrading-control-plane", ev)
			}
			if e := f.Evidence(t, "default"); e.DetectedBy != recovery.WhyLeaseExpired || e.Lease == nil || e.Lease.Owner != "dead:1:x" {
				t.Errorf("evidence %+v: want lease-expired naming the dead owner", e)
			}
		})
	}
}

// A live lease means slow, not stuck: never touched, however old the state.
func TestAuditLeavesLiveLeaseAlone(t *testing.T) {
	f := recoverytest.New(t)
	f.Start(t, "default")
	f.Move(t, "default", state.UpgradingFirstMaster, "controller-1", state.UpgradingControlPlane, "alive:1:x", 10*time.Hour)
	f.Clk.Add(5 * time.Hour)
	before := len(f.Events(t, "default"))
	rep := audit(t, f, recovery.AuditOptions{StaleAfter: time.Minute})

	if len(rep.Actions) != 0 || len(rep.InFlight) != 1 {
		t.Fatalf("actions %+v, in flight %d: want none, 1", rep.Actions, len(rep.InFlight))
	}
	if u := f.Upgrade(t, "default"); u.State != state.UpgradingFirstMaster {
		t.Errorf("state %s, want upgrading-first-master untouched", u.State)
	}
	if l := f.Lease(t, "default"); l == nil || l.Owner != "alive:1:x" {
		t.Errorf("lease %+v, want alive:1:x's", l)
	}
	if n := len(f.Events(t, "default")); n != before {
		t.Errorf("%d events written", n-before)
	}
}

// With no lease row at all (an older tool, a hand edit), age decides, from state_entered_at.
func TestAuditStaleStateWithoutLease(t *testing.T) {
	for _, tc := range []struct {
		name string
		age  time.Duration
		want state.State
	}{
		{"older than stale-after", 2 * time.Hour, state.UpgradingNetworkingFailed},
		{"younger than stale-after", 30 * time.Minute, state.UpgradingNetworking},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := recoverytest.New(t)
			f.Start(t, "default")
			f.Move(t, "default", state.UpgradingNetworking, "", "", "", 0)
			f.Clk.Add(tc.age)
			audit(t, f, recovery.AuditOptions{StaleAfter: time.Hour})
			if u := f.Upgrade(t, "default"); u.State != tc.want {
				t.Errorf("state %s, want %s", u.State, tc.want)
			}
		})
	}
}

// The StarlingX test plan's hand edit is audited like a state kupgrade wrote, and ages come out
// right whatever the process's zone.
func TestAuditHandEditedStateInAnyZone(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("UTC+14", 14*3600), time.FixedZone("UTC-11", -11*3600)}
	edits := []struct {
		ago  string
		want state.State
	}{
		{"-2 hours", state.UpgradingSecondMasterFailed},
		{"-30 minutes", state.UpgradingSecondMaster},
	}
	for _, zone := range zones {
		for _, e := range edits {
			t.Run(zone.String()+e.ago, func(t *testing.T) {
				local := time.Local
				time.Local = zone
				t.Cleanup(func() { time.Local = local })
				f := recoverytest.New(t)
				f.Start(t, "default")
				f.SQL(t, `UPDATE kube_upgrade SET state = 'upgrading-second-master',
					state_entered_at = datetime('now', ?) WHERE cluster = 'default'`, e.ago)
				audit(t, f, recovery.AuditOptions{StaleAfter: time.Hour})
				if u := f.Upgrade(t, "default"); u.State != e.want {
					t.Errorf("in %s, entered %s: state %s, want %s", zone, e.ago, u.State, e.want)
				}
			})
		}
	}
}

// A kubelet batch whose runner died: each host upgrading-kubelet is cleared, the cluster stays
// in upgrading-kubelets, and a host already done is left as it is.
func TestAuditClearsUpgradingKubeletHosts(t *testing.T) {
	f := recoverytest.New(t)
	f.Start(t, "default")
	f.Move(t, "default", state.UpgradingKubelets, "controller-1", state.UpgradedKubelet, "", 0)
	f.Move(t, "default", state.UpgradingKubelets, "controller-2", state.UpgradingKubelet, "dead:2:y", 30*time.Second)
	f.Move(t, "default", state.UpgradingKubelets, "worker-1", state.UpgradingKubelet, "", 0)
	f.Clk.Add(time.Minute)
	rep := audit(t, f, recovery.AuditOptions{})

	if len(rep.Actions) != 2 {
		t.Fatalf("actions %+v, want one per upgrading-kubelet host", rep.Actions)
	}
	if u := f.Upgrade(t, "default"); u.State != state.UpgradingKubelets {
		t.Errorf("state %s, want upgrading-kubelets", u.State)
	}
	for host, want := range map[string]state.HostStatus{"controller-1": state.UpgradedKubelet, "controller-2": state.UpgradingKubeletFailed, "worker-1": state.UpgradingKubeletFailed} {
		if got := f.Status(t, "default", host); got != want {
			t.Errorf("%s status %q, want %q", host, got, want)
		}
	}
	if rep := audit(t, f, recovery.AuditOptions{}); len(rep.InFlight) != 0 || len(rep.Actions) != 0 {
		t.Errorf("second pass: in flight %d, actions %+v; want nothing left", len(rep.InFlight), rep.Actions)
	}
}

// The audit probes the host when it can reach the cluster, and an unreachable host is evidence,
// not a reason to leave the operation stuck.
func TestAuditProbesAndRecordsUnreachable(t *testing.T) {
	f := recoverytest.New(t)
	for _, c := range []string{"reachable", "unreachable"} {
		f.Start(t, c)
		f.Move(t, c, state.UpgradingSecondMaster, "controller-2", state.UpgradingControlPlane, "dead", -time.Second)
	}
	probers := map[string]recovery.Prober{
		"reachable":   &fakeProber{findings: map[string]kubeadm.Finding{"controller-2": lateFinding}},
		"unreachable": &fakeProber{},
	}
	rep := audit(t, f, recovery.AuditOptions{Probers: func(c string) recovery.Prober { return probers[c] }})

	if len(rep.Actions) != 2 {
		t.Fatalf("actions %+v, want both clusters failed", rep.Actions)
	}
	for _, c := range []string{"reachable", "unreachable"} {
		if u := f.Upgrade(t, c); u.State != state.UpgradingSecondMasterFailed {
			t.Errorf("%s: state %s, want upgrading-second-master-failed", c, u.State)
		}
	}
	if e := f.Evidence(t, "reachable"); e.Finding == nil || e.Finding.Class != kubeadm.FindingConfigRewritten {
		t.Errorf("reachable evidence %+v: want the probe's finding", e)
	}
	if e := f.Evidence(t, "unreachable"); !e.Unreachable || e.ProbeError == "" || e.Finding != nil {
		t.Errorf("unreachable evidence %+v: want unreachable with the probe's error", e)
	}
}
