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

func TestRecoverRefusesLiveLease(t *testing.T) {
	f := recoverytest.StuckSecondMaster(t, time.Hour)
	before := len(f.Events(t, "default"))
	p := &fakeProber{findings: map[string]kubeadm.Finding{"controller-2": lateFinding}}
	for _, dry := range []bool{false, true} {
		_, err := recovery.Recover(t.Context(), f.St, recovery.RecoverOptions{Cluster: "default", Prober: p, DryRun: dry})
		if !isConflict(err) {
			t.Fatalf("dry run %v: err %v, want a conflict (exit 4)", dry, err)
		}
		for _, want := range []string{"host-a:4242:abcd", "control-plane@controller-2", "--force"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", err, want)
			}
		}
	}
	if u := f.Upgrade(t, "default"); u.State != state.UpgradingSecondMaster || len(f.Events(t, "default")) != before {
		t.Errorf("state %s, %d new events: want nothing written", u.State, len(f.Events(t, "default"))-before)
	}
	if len(p.calls) != 0 {
		t.Errorf("probed %v while the owner is alive", p.calls)
	}
}

func TestRecoverForceOverridesLiveLease(t *testing.T) {
	f := recoverytest.StuckSecondMaster(t, time.Hour)
	rec, err := recovery.Recover(t.Context(), f.St, recovery.RecoverOptions{Cluster: "default", Force: true})
	if err != nil {
		t.Fatalf("recover --force: %v", err)
	}
	if !rec.Forced || rec.After != state.UpgradingSecondMasterFailed {
		t.Errorf("recovery %+v: want forced, to upgrading-second-master-failed", rec)
	}
	if l := f.Lease(t, "default"); l != nil {
		t.Errorf("lease %+v left behind", l)
	}
	if e := f.Evidence(t, "default"); e.DetectedBy != "recover --force" || e.Lease == nil {
		t.Errorf("evidence %+v: want the overridden lease recorded", e)
	}
}

func TestRecoverFailsProbesAndClears(t *testing.T) {
	f := recoverytest.StuckSecondMaster(t, 30*time.Second)
	f.Clk.Add(time.Minute)
	p := &fakeProber{findings: map[string]kubeadm.Finding{"controller-2": lateFinding}}
	rec, err := recovery.Recover(t.Context(), f.St, recovery.RecoverOptions{Cluster: "default", Prober: p})
	if err != nil {
		t.Fatalf("recover: %v", err)
	}
	if rec.Before != state.UpgradingSecondMaster || rec.After != state.UpgradingSecondMasterFailed {
		t.Errorf("%s -> %s, want upgrading-second-master -> upgrading-second-master-failed", rec.Before, rec.After)
	}
	if len(rec.Hosts) != 1 || !rec.Hosts[0].Cleared || rec.Hosts[0].Probe == nil || rec.Hosts[0].Probe.Finding == nil {
		t.Fatalf("hosts %+v: want controller-2 cleared with the finding", rec.Hosts)
	}
	if len(p.calls) != 1 || p.calls[0] != "controller-2@v1.30.1" {
		t.Errorf("probe calls %v, want controller-2 against v1.30.1", p.calls)
	}
	if s := f.Status(t, "default", "controller-2"); s != state.HostIdle {
		t.Errorf("controller-2 status %q, want cleared", s)
	}
	ev := f.Events(t, "default")[0]
	if ev.Actor != state.ActorRecover {
		t.Errorf("event actor %s, want recover", ev.Actor)
	}
	if e := f.Evidence(t, "default"); e.Finding == nil || e.Finding.Class != kubeadm.FindingConfigRewritten {
		t.Errorf("evidence %+v: want the finding", e)
	}

	// Twice is harmless: the second run finds nothing stuck and writes nothing.
	n := len(f.Events(t, "default"))
	again, err := recovery.Recover(t.Context(), f.St, recovery.RecoverOptions{Cluster: "default", Prober: p})
	if err != nil || again.Stuck {
		t.Fatalf("second recover: %+v, %v; want nothing stuck", again, err)
	}
	if len(f.Events(t, "default")) != n {
		t.Error("second recover wrote an event")
	}
}

func TestRecoverDryRunWritesNothing(t *testing.T) {
	f := recoverytest.StuckSecondMaster(t, -time.Second)
	n := len(f.Events(t, "default"))
	p := &fakeProber{findings: map[string]kubeadm.Finding{"controller-2": lateFinding}}
	rec, err := recovery.Recover(t.Context(), f.St, recovery.RecoverOptions{Cluster: "default", Prober: p, DryRun: true})
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if !rec.Stuck || rec.After != state.UpgradingSecondMasterFailed || rec.Hosts[0].Cleared || rec.Hosts[0].Probe.Finding == nil {
		t.Errorf("plan %+v: want the predicted failed twin, the finding, nothing cleared", rec)
	}
	u := f.Upgrade(t, "default")
	if u.State != state.UpgradingSecondMaster || f.Status(t, "default", "controller-2") != state.UpgradingControlPlane ||
		f.Lease(t, "default") == nil || len(f.Events(t, "default")) != n {
		t.Errorf("the dry run changed the store: state %s", u.State)
	}
}

func TestRecoverUnreachableHostIsReportedNotFatal(t *testing.T) {
	f := recoverytest.StuckSecondMaster(t, -time.Second)
	rec, err := recovery.Recover(t.Context(), f.St, recovery.RecoverOptions{Cluster: "default", Prober: &fakeProber{}})
	if err != nil {
		t.Fatalf("recover: %v", err)
	}
	if pr := rec.Hosts[0].Probe; pr == nil || !pr.Unreachable || !strings.Contains(pr.Error, "connection refused") {
		t.Errorf("probe %+v: want unreachable with the dial error", pr)
	}
	if u := f.Upgrade(t, "default"); u.State != state.UpgradingSecondMasterFailed {
		t.Errorf("state %s, want failed anyway", u.State)
	}
	if e := f.Evidence(t, "default"); !e.Unreachable || e.ProbeError == "" {
		t.Errorf("evidence %+v: want the unreachable probe recorded", e)
	}
}

func TestRecoverFindsWhatIsStuck(t *testing.T) {
	for _, tc := range []struct {
		name      string
		setup     func(t *testing.T, f *recoverytest.Fixture)
		stuck     bool
		wantState state.State
		cleared   []string
	}{
		{"no upgrade", func(t *testing.T, f *recoverytest.Fixture) {}, false, "", nil},
		{"idle state", func(t *testing.T, f *recoverytest.Fixture) { f.Start(t, "default") }, false, state.UpgradeStarted, nil},
		{"hand-edited into flight", func(t *testing.T, f *recoverytest.Fixture) {
			f.Start(t, "default")
			f.SQL(t, `UPDATE kube_upgrade SET state = 'upgrading-second-master', state_entered_at = datetime('now', '-2 hours') WHERE cluster = 'default'`)
		}, true, state.UpgradingSecondMasterFailed, nil},
		{"failed state, host status left in flight", func(t *testing.T, f *recoverytest.Fixture) {
			f.Start(t, "default")
			f.Move(t, "default", state.UpgradingSecondMasterFailed, "controller-2", state.UpgradingControlPlane, "", 0)
		}, true, state.UpgradingSecondMasterFailed, []string{"controller-2"}},
		{"kubelet batch", func(t *testing.T, f *recoverytest.Fixture) {
			f.Start(t, "default")
			f.Move(t, "default", state.UpgradingKubelets, "controller-2", state.UpgradingKubelet, "", 0)
			f.Move(t, "default", state.UpgradingKubelets, "worker-1", state.UpgradingKubelet, "", 0)
		}, true, state.UpgradingKubelets, []string{"controller-2", "worker-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := recoverytest.New(t)
			tc.setup(t, f)
			rec, err := recovery.Recover(t.Context(), f.St, recovery.RecoverOptions{Cluster: "default"})
			if err != nil {
				t.Fatalf("recover: %v", err)
			}
			if rec.Stuck != tc.stuck || rec.After != tc.wantState {
				t.Fatalf("stuck %v, state after %s; want %v, %s", rec.Stuck, rec.After, tc.stuck, tc.wantState)
			}
			var cleared []string
			for _, h := range rec.Hosts {
				if h.Cleared {
					cleared = append(cleared, h.Host)
				}
				if h.Probe != nil {
					t.Errorf("probed %s without a prober (--no-probe)", h.Host)
				}
				if s := f.Status(t, "default", h.Host); s != state.HostIdle && s != state.UpgradingKubeletFailed {
					t.Errorf("%s status %q, want cleared (idle, or upgrading-kubelet-failed for a kubelet)", h.Host, s)
				}
			}
			if strings.Join(cleared, ",") != strings.Join(tc.cleared, ",") {
				t.Errorf("cleared %v, want %v", cleared, tc.cleared)
			}
		})
	}
}
