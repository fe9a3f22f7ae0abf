package upgrade_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// A kubelet step whose host already has the target's kubelet binary is skipped only when the API
// server says the node is settled: a run killed between the install and the restart (the node
// still reports the old kubelet) or before the uncordon (the node still carries kupgrade's
// cordon) leaves a binary at the target, and the retry must finish the step, not mark it done.
func TestKubeletSkipAsksTheAPIServer(t *testing.T) {
	for _, tc := range []struct {
		name          string
		stale, cordon string
		wantRun       bool
	}{
		{name: "settled node", wantRun: false},
		{name: "killed before the restart", stale: "v1.29.4", wantRun: true},
		{name: "killed before the uncordon", cordon: "v1.30.1", wantRun: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.at(t, state.UpgradedSecondMaster)
			for _, c := range []string{"controller-0", "controller-1"} {
				if err := f.w.Do(t.Context(), kubelet(c)); err != nil {
					t.Fatal(err)
				}
			}
			f.c.mu.Lock()
			f.c.kubelet["worker-0"] = "v1.30.1" // the package is installed
			if tc.stale != "" {
				f.c.stale = map[string]string{"worker-0": tc.stale}
			}
			if tc.cordon != "" {
				f.c.cordoned["worker-0"] = tc.cordon
			}
			f.c.mu.Unlock()
			before := len(f.c.played())
			if err := f.w.Do(t.Context(), kubelet("worker-0")); err != nil {
				t.Fatal(err)
			}
			ran := f.c.played()[before:]
			if got := slices.Equal(ran, kubeletPhases("worker-0")); got != tc.wantRun {
				t.Errorf("plays run on the retry: %v; want the whole kubelet step run: %t", ran, tc.wantRun)
			}
			if tc.wantRun == false && len(ran) > 0 {
				t.Errorf("a settled node ran %v, want nothing", ran)
			}
			if h := f.host(t, "worker-0"); h.Status != state.UpgradedKubelet {
				t.Errorf("worker-0 is %s, want upgraded-kubelet", h.Status)
			}
			if cv := f.c.cordoned["worker-0"]; cv != "" {
				t.Errorf("worker-0 is left cordoned by kupgrade (%s)", cv)
			}
		})
	}
}

// A kubelet step started between the pre-check that found worker-0 settled and its mark (an
// operator's `host upgrade worker-0 kubelet -f`) that drained the node and failed its kubelet
// leaves the node cordoned by kupgrade: the mark must not record worker-0 upgraded-kubelet over
// it (state/model/phases.pml, P1). The retry then finds the node cordoned and finishes the step.
func TestKubeletMarkRefusedAfterAnotherStart(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedSecondMaster)
	for _, c := range []string{"controller-0", "controller-1"} {
		if err := f.w.Do(t.Context(), kubelet(c)); err != nil {
			t.Fatal(err)
		}
	}
	rerun := *f.w
	rerun.Owner = "operator:1:rerun"
	var rerunErr error
	f.c.mu.Lock()
	f.c.kubelet["worker-0"] = "v1.30.1" // upgraded by hand: the node is settled
	f.c.onNodes = func() {
		f.c.mu.Lock()
		f.c.onPlay = func(_ context.Context, name, _ string) (*runner.Recap, error, bool) {
			if name == "kubelet:kubelet" {
				return failed("worker-0", 100, "E: Unable to locate package kubelet"), nil, true
			}
			return nil, nil, false
		}
		f.c.mu.Unlock()
		act := kubelet("worker-0")
		act.Rerun = true
		rerunErr = rerun.Do(t.Context(), act)
		f.c.mu.Lock()
		f.c.onPlay = nil
		f.c.mu.Unlock()
	}
	f.c.mu.Unlock()
	err := f.w.Do(t.Context(), kubelet("worker-0"))
	if rerunErr == nil {
		t.Fatal("the -f run's failed kubelet phase reported no error")
	}
	if !errors.Is(err, state.ErrConflict) {
		t.Errorf("the mark after the -f run: %v, want a conflict", err)
	}
	if h := f.host(t, "worker-0"); h.Status != state.UpgradingKubeletFailed || f.c.cordoned["worker-0"] == "" {
		t.Fatalf("worker-0 is %s, cordoned by kupgrade %q; want upgrading-kubelet-failed and still cordoned, as the -f run left it", h.Status, f.c.cordoned["worker-0"])
	}
	if err := f.w.Do(t.Context(), kubelet("worker-0")); err != nil {
		t.Fatal(err)
	}
	if h := f.host(t, "worker-0"); h.Status != state.UpgradedKubelet || f.c.cordoned["worker-0"] != "" {
		t.Errorf("after the retry worker-0 is %s, cordoned by kupgrade %q; want upgraded-kubelet, uncordoned", h.Status, f.c.cordoned["worker-0"])
	}
}
