package upgrade_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// Complete is written only once the API server reports every kubelet at the target: a node
// still reporting the old version fails the step to upgrade-completing-failed, naming the node
// and what it reports, with the hosts still recorded upgraded and the lease free; the same
// `upgrade run` completes once the node reports the target.
func TestCompleteVerifiesTheCluster(t *testing.T) {
	inBubble(t, func(t *testing.T, f *fixture) {
		f.c.stale = map[string]string{"worker-0": "v1.29.4"}
		f.at(t, state.UpgradingKubelets)
		err := f.w.Run(t.Context(), upgrade.RunOptions{})
		var se *upgrade.StepError
		if !errors.As(err, &se) || !se.Recorded || se.Step != state.StepComplete {
			t.Fatalf("complete with a stale node: %v, want a recorded failure of complete", err)
		}
		f.wantState(t, state.UpgradeCompletingFailed)
		ev := f.lastEvent(t)
		for _, want := range []string{"worker-0 (kubelet v1.29.4, want v1.30.1)", "kubelets-at-target"} {
			if !strings.Contains(ev.Reason, want) || !strings.Contains(string(ev.Evidence), want) {
				t.Errorf("failure event %q (evidence %s) does not name %q", ev.Reason, ev.Evidence, want)
			}
		}
		if h := f.host(t, "worker-0"); h.Status != state.UpgradedKubelet {
			t.Errorf("worker-0 is %s after the failed verification, want still upgraded-kubelet", h.Status)
		}
		if l, _ := f.st.Lease(t.Context(), "default"); l != nil {
			t.Errorf("lease still held after the failure: %+v", l)
		}
		if se.Retry != "kupgrade upgrade complete" {
			t.Errorf("retry hint %q", se.Retry)
		}

		f.c.mu.Lock()
		f.c.stale = nil
		f.c.mu.Unlock()
		if err := f.w.Run(t.Context(), upgrade.RunOptions{}); err != nil {
			t.Fatalf("retry once the node reports the target: %v", err)
		}
		f.wantState(t, state.UpgradeComplete)
		for _, h := range []string{"controller-0", "controller-1", "worker-0"} {
			if st := f.host(t, h).Status; st != state.HostIdle {
				t.Errorf("%s is %s after complete, want idle", h, st)
			}
		}
	})
}

// A node whose status catches up while complete waits (the API server lagging the kubelet's
// restart) does not fail the step: complete asks again until VerifyTimeout.
func TestCompleteWaitsForTheCluster(t *testing.T) {
	inBubble(t, func(t *testing.T, f *fixture) {
		f.w.VerifyTimeout = 10 * time.Second
		f.at(t, state.UpgradingKubelets)
		f.c.mu.Lock()
		f.c.stale, f.c.staleAnswers = map[string]string{"controller-1": "v1.29.4"}, 1
		f.c.mu.Unlock()
		if err := f.w.Run(t.Context(), upgrade.RunOptions{}); err != nil {
			t.Fatalf("complete with a node catching up: %v", err)
		}
		f.wantState(t, state.UpgradeComplete)
	})
}

// A controller that cannot be reached refuses complete before anything is written.
func TestCompleteUnreachableWritesNothing(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradingKubelets)
	f.c.mu.Lock()
	f.c.down["controller-0"] = errors.New("dial tcp: connection refused")
	f.c.mu.Unlock()
	if err := f.w.Do(t.Context(), upgrade.Action{Step: state.StepComplete}); err == nil {
		t.Fatal("complete with its controller unreachable succeeded")
	}
	f.wantState(t, state.UpgradingKubelets)
}
