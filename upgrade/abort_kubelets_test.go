package upgrade_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// everyKubeletUpgraded walks the fixture's upgrade through every kubelet step.
func everyKubeletUpgraded(t *testing.T, f *fixture) {
	t.Helper()
	f.at(t, state.UpgradedSecondMaster)
	for _, h := range []string{"controller-0", "controller-1", "worker-0"} {
		if err := f.w.Do(t.Context(), kubelet(h)); err != nil {
			t.Fatal(err)
		}
	}
}

// abortPhases are the plays of taking the kubelets of hosts back, one host after the other.
func abortPhases(hosts ...string) []string { return kubeletPhases(hosts...) }

// Without --kubelets abort refuses once kubelets moved, naming each, and says what --kubelets
// does; with it, each kubelet goes back first (workers, then controllers: drain, packages at
// the from version, uncordon), then the control plane, and the abort ends upgrade-aborted with
// every host idle and every kubelet read back at the from version.
func TestAbortKubeletsGoBackBeforeTheControlPlane(t *testing.T) {
	f := newFixture(t)
	everyKubeletUpgraded(t, f)
	before := f.wantState(t, state.UpgradingKubelets)
	err := f.w.Abort(t.Context())
	for _, want := range []string{"worker-0 at v1.30.1", "controller-1 at v1.30.1", "newer than their API server",
		"kupgrade upgrade abort --kubelets", "drains the node", "installs kubelet and kubectl v1.29.4", "moved back to v1.29", "uncordons it"} {
		if !errors.Is(err, state.ErrRefused) || !strings.Contains(err.Error(), want) {
			t.Errorf("abort without --kubelets: %v\nwant a refusal saying %q", err, want)
		}
	}
	if u := f.wantState(t, state.UpgradingKubelets); !u.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("the refused abort wrote the upgrade row")
	}
	played := len(f.c.played())
	f.w.AbortKubelets = true
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("abort --kubelets: %v", err)
	}
	want := append(abortPhases("worker-0", "controller-0", "controller-1"), "abort@controller-0:controller-1")
	if got := f.c.played()[played:]; !slices.Equal(got, want) {
		t.Errorf("abort --kubelets played\n %v\nwant\n %v", got, want)
	}
	f.wantState(t, state.UpgradeAborted)
	for _, h := range []string{"controller-0", "controller-1", "worker-0"} {
		if row := f.host(t, h); row.Status != state.HostIdle || row.KubeletVersion != "v1.29.4" {
			t.Errorf("%s is %s with its kubelet recorded at %s, want idle at v1.29.4", h, row.Status, row.KubeletVersion)
		}
	}
	if len(f.c.cordoned) != 0 {
		t.Errorf("nodes left cordoned: %v", f.c.cordoned)
	}
	var walk []string
	evs, _ := f.st.Events(t.Context(), "default", 0)
	for _, e := range slices.Backward(evs) {
		if e.Hostname == "worker-0" && e.FromHostStatus != e.ToHostStatus && (e.FromState == state.UpgradeAborting || e.ToState == state.UpgradeAborting) {
			walk = append(walk, e.FromHostStatus.String()+">"+e.ToHostStatus.String())
		}
	}
	if w := []string{"upgraded-kubelet>draining-node", "draining-node>downgrading-kubelet", "downgrading-kubelet>uncordoning-node", "uncordoning-node>-"}; !slices.Equal(walk, w) {
		t.Errorf("worker-0's moves during the abort:\n got %v\nwant %v", walk, w)
	}
}

// A kubelet whose node still reports the target after the restart fails the abort there:
// upgrade-aborting-failed naming the host and what its node reports, nothing further run; the
// retry reads the kubelets again, takes that host back from its drain and goes on.
func TestAbortKubeletsVerifiedAndRetried(t *testing.T) {
	inBubble(t, func(t *testing.T, f *fixture) {
		everyKubeletUpgraded(t, f)
		f.w.AbortKubelets = true
		f.c.mu.Lock()
		f.c.stale = map[string]string{"worker-0": "v1.30.1"}
		f.c.staleAnswers = 1000
		f.c.mu.Unlock()
		played := len(f.c.played())
		err := f.w.Abort(t.Context())
		if err == nil || !strings.Contains(err.Error(), "worker-0 is not back at v1.29.4") || !strings.Contains(err.Error(), "reports kubelet v1.30.1") {
			t.Fatalf("abort: %v, want a failure naming worker-0's node at v1.30.1", err)
		}
		f.wantState(t, state.UpgradeAbortingFailed)
		if got := f.c.played()[played:]; !slices.Equal(got, []string{"kubelet:drain@worker-0", "kubelet:kubelet@worker-0"}) {
			t.Errorf("played %v, want worker-0's drain and kubelet, nothing after", got)
		}
		if h := f.host(t, "worker-0"); h.Status != state.HostIdle || !strings.Contains(h.LastFailure, "not back at v1.29.4") {
			t.Errorf("worker-0 is %s (last failure %q), want idle naming the failure", h.Status, h.LastFailure)
		}
		f.c.mu.Lock()
		f.c.stale, f.c.kubelet["worker-0"] = nil, "v1.30.1" // as if the package install had not stuck
		f.c.mu.Unlock()
		played = len(f.c.played())
		if err := f.w.Abort(t.Context()); err != nil {
			t.Fatalf("the retry: %v", err)
		}
		want := append(abortPhases("worker-0", "controller-0", "controller-1"), "abort@controller-0:controller-1")
		if got := f.c.played()[played:]; !slices.Equal(got, want) {
			t.Errorf("the retry played\n %v\nwant\n %v", got, want)
		}
		f.wantState(t, state.UpgradeAborted)
	})
}

// An uncordon that fails during the abort leaves the host uncordoning-node-failed; the retry
// only uncordons it (its kubelet is back) and goes on with the next host.
func TestAbortKubeletsUncordonRetry(t *testing.T) {
	f := newFixture(t)
	everyKubeletUpgraded(t, f)
	f.w.AbortKubelets = true
	failPhase(f, "kubelet:uncordon", "worker-0", func(h string) *runner.Recap {
		return failed(h, 1, "error: the server doesn't have a resource type \"nodes\"\n")
	})
	var se *upgrade.StepError
	if err := f.w.Abort(t.Context()); !errors.As(err, &se) || se.Retry != "kupgrade upgrade abort --kubelets" {
		t.Fatalf("abort through a failed uncordon: %v (%+v), want a step error whose retry keeps --kubelets", err, se)
	}
	f.wantState(t, state.UpgradeAbortingFailed)
	if h := f.host(t, "worker-0"); h.Status != state.UncordoningNodeFailed {
		t.Fatalf("worker-0 is %s, want uncordoning-node-failed", h.Status)
	}
	played := len(f.c.played())
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	want := append([]string{"kubelet:uncordon@worker-0"}, abortPhases("controller-0", "controller-1")...)
	if got := f.c.played()[played:]; !slices.Equal(append(got[:0:0], got[:len(want)]...), want) {
		t.Errorf("the retry played %v, want it to start %v", got, want)
	}
	f.wantState(t, state.UpgradeAborted)
}

// A process that dies while a kubelet goes back leaves the host downgrading-kubelet under an
// abort in flight; recover fails it as any other operation (upgrade-aborting-failed, the host
// idle), the dead run's own outcome is not recorded over it, and the retry finishes the abort.
func TestAbortKubeletsRecoveredAndResumed(t *testing.T) {
	inBubble(t, func(t *testing.T, f *fixture) {
		everyKubeletUpgraded(t, f)
		f.w.AbortKubelets = true
		var rec recovery.Recovery
		f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
			if name != "kubelet:kubelet" || limit != "controller-0" {
				return nil, nil, false
			}
			f.c.onPlay = nil
			var err error
			if rec, err = recovery.Recover(ctx, f.st, recovery.RecoverOptions{Cluster: "default", Force: true}); err != nil {
				t.Errorf("recover: %v", err)
			}
			return &runner.Recap{}, context.Canceled, true
		}
		err := f.w.Abort(t.Context())
		if !errors.Is(err, upgrade.ErrNotRecorded) {
			t.Errorf("abort overtaken by recover: %v, want its outcome not recorded", err)
		}
		if len(rec.Hosts) != 1 || rec.Hosts[0].Host != "controller-0" || rec.Hosts[0].Status != state.DowngradingKubelet || rec.After != state.UpgradeAbortingFailed {
			t.Errorf("recover found %+v, after %s; want controller-0 downgrading-kubelet failed to upgrade-aborting-failed", rec.Hosts, rec.After)
		}
		if h := f.host(t, "controller-0"); h.Status != state.HostIdle {
			t.Errorf("controller-0 is %s after recover, want idle", h.Status)
		}
		if err := f.w.Abort(t.Context()); err != nil {
			t.Fatalf("the retry: %v", err)
		}
		f.wantState(t, state.UpgradeAborted)
	})
}
