package upgrade_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

const twoWorkers = twoPlusOne + `        worker-1:
`

// drainBlocked is the recap of the drain phase's verification on host, as the shipped playbook
// words a drain a budget blocked.
func drainBlocked(host string) *runner.Recap {
	return &runner.Recap{Hosts: map[string]*runner.HostRecap{host: {Failed: 1}},
		Failures: []*runner.HostError{{Host: host, Task: "Verify the node is drained", Result: map[string]any{
			"failed": true, "msg": "kubectl drain " + host + " failed: error when evicting pods/\"web-1\" -n \"default\" (will retry after 5s): global timeout reached: 1m0s; budgets allowing no disruption: default/web (min available 2, max unavailable N/A)"}}}}
}

// failPhase makes the named phase ("kubelet:drain", ...) fail on host once.
func failPhase(f *fixture, phase, host string, recap func(string) *runner.Recap) {
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		if name != phase || !slices.Contains(strings.Split(limit, ":"), host) {
			return nil, nil, false
		}
		f.c.onPlay = nil
		r := recap(host)
		return r, r.Err(), true
	}
}

func kubelet(hosts ...string) upgrade.Action {
	return upgrade.Action{Step: state.StepKubelets, Hosts: hosts}
}

// A drain a budget blocks ends draining-node-failed, naming the pod and the budget, with advice
// about the drain (not kubeadm); nothing past the drain ran, the lease is released; the retry
// drains again and walks every phase to upgraded-kubelet.
func TestDrainFailureKeepsItsTwinAndTheRetryDrainsAgain(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedSecondMaster)
	for _, c := range []string{"controller-0", "controller-1"} {
		if err := f.w.Do(t.Context(), kubelet(c)); err != nil {
			t.Fatal(err)
		}
	}
	before := len(f.c.played())
	failPhase(f, "kubelet:drain", "worker-0", drainBlocked)
	err := f.w.Do(t.Context(), kubelet("worker-0"))
	var se *upgrade.StepError
	if !errors.As(err, &se) || !se.Recorded || !strings.Contains(se.Error(), "default/web") || !strings.Contains(se.Error(), "web-1") {
		t.Fatalf("err = %v, want a recorded failure naming the pod and the budget", err)
	}
	if se.Finding == nil || se.Finding.Class != kubeadm.FindingDrainBlocked || strings.Contains(se.Finding.Next, "kubeadm upgrade") {
		t.Errorf("finding %+v, want drain-blocked with advice about the budget", se.Finding)
	}
	if se.Retry != "kupgrade host upgrade worker-0 kubelet" {
		t.Errorf("retry %q", se.Retry)
	}
	if h := f.host(t, "worker-0"); h.Status != state.DrainingNodeFailed || !strings.Contains(h.LastFailure, "default/web") {
		t.Errorf("worker-0 is %s (last failure %q), want draining-node-failed naming the budget", h.Status, h.LastFailure)
	}
	if got := f.c.played()[before:]; !slices.Equal(got, []string{"kubelet:drain@worker-0"}) {
		t.Errorf("played %v, want only the drain", got)
	}
	if l, _ := f.st.Lease(t.Context(), "default"); l != nil {
		t.Errorf("the lease outlived the failure: %+v", l)
	}
	before = len(f.c.played())
	if err := f.w.Do(t.Context(), kubelet("worker-0")); err != nil {
		t.Fatal(err)
	}
	if got, want := f.c.played()[before:], kubeletPhases("worker-0"); !slices.Equal(got, want) {
		t.Errorf("retry played %v, want %v", got, want)
	}
	if h := f.host(t, "worker-0"); h.Status != state.UpgradedKubelet {
		t.Errorf("worker-0 is %s after the retry", h.Status)
	}
}

// An uncordon that fails ends uncordoning-node-failed; the retry only uncordons (no kubeadm, no
// install, no restart) and ends upgraded-kubelet. The host's moves are in the history, each
// from the status the previous one left.
func TestUncordonFailureRetryOnlyUncordons(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedSecondMaster)
	failPhase(f, "kubelet:uncordon", "controller-0", func(h string) *runner.Recap {
		return failed(h, 1, "error: the server doesn't have a resource type \"nodes\"\n")
	})
	err := f.w.Do(t.Context(), kubelet("controller-0"))
	var se *upgrade.StepError
	if !errors.As(err, &se) || !se.Recorded || se.Finding == nil || se.Finding.Class != kubeadm.FindingUncordonFailed {
		t.Fatalf("err = %v (finding %+v), want a recorded uncordon failure", err, se)
	}
	if h := f.host(t, "controller-0"); h.Status != state.UncordoningNodeFailed || h.KubeletVersion != "v1.30.1" {
		t.Fatalf("controller-0 is %s at %s, want uncordoning-node-failed with its kubelet at v1.30.1", h.Status, h.KubeletVersion)
	}
	before := len(f.c.played())
	if err := f.w.Do(t.Context(), kubelet("controller-0")); err != nil {
		t.Fatal(err)
	}
	if got := f.c.played()[before:]; !slices.Equal(got, []string{"kubelet:uncordon@controller-0"}) {
		t.Errorf("retry played %v, want only the uncordon", got)
	}
	if h := f.host(t, "controller-0"); h.Status != state.UpgradedKubelet {
		t.Errorf("controller-0 is %s after the retry", h.Status)
	}
	var walk []string
	evs, _ := f.st.Events(t.Context(), "default", 0)
	for _, e := range slices.Backward(evs) {
		if e.Hostname == "controller-0" && e.FromState == state.UpgradingKubelets || e.ToState == state.UpgradingKubelets && e.Hostname == "controller-0" {
			walk = append(walk, e.FromHostStatus.String()+">"+e.ToHostStatus.String())
		}
	}
	want := []string{"->draining-node", "draining-node>upgrading-kubelet", "upgrading-kubelet>uncordoning-node",
		"uncordoning-node>uncordoning-node-failed", "uncordoning-node-failed>uncordoning-node", "uncordoning-node>upgraded-kubelet"}
	if !slices.Equal(walk, want) {
		t.Errorf("controller-0's moves:\n got %v\nwant %v", walk, want)
	}
}

// In a batch, a host whose drain fails stops there while the others walk on; the lease stays
// while any host of the batch is in flight and goes with the last write.
func TestBatchDrainFailureStopsOnlyThatHost(t *testing.T) {
	f := newFixtureWith(t, twoWorkers)
	f.c.snaps["worker-1"], f.c.kubelet["worker-1"] = f.c.snaps["worker-0"], "v1.29.4"
	f.at(t, state.UpgradedSecondMaster)
	for _, c := range []string{"controller-0", "controller-1"} {
		if err := f.w.Do(t.Context(), kubelet(c)); err != nil {
			t.Fatal(err)
		}
	}
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		if l, _ := f.st.Lease(ctx, "default"); l == nil {
			t.Errorf("%s@%s ran with no lease", name, limit)
		}
		if name == "kubelet:drain" {
			r := drainBlocked("worker-1")
			r.Hosts["worker-0"] = &runner.HostRecap{OK: 4}
			return r, r.Err(), true
		}
		return nil, nil, false
	}
	before := len(f.c.played())
	err := f.w.Do(t.Context(), kubelet("worker-0", "worker-1"))
	if err == nil || !strings.Contains(err.Error(), "worker-1") || strings.Contains(err.Error(), "worker-0:") {
		t.Fatalf("err = %v, want worker-1's drain only", err)
	}
	want := []string{"kubelet:drain@worker-0:worker-1", "kubelet:kubelet@worker-0", "kubelet:uncordon@worker-0"}
	if got := f.c.played()[before:]; !slices.Equal(got, want) {
		t.Errorf("played %v, want %v", got, want)
	}
	for h, want := range map[string]state.HostStatus{"worker-0": state.UpgradedKubelet, "worker-1": state.DrainingNodeFailed} {
		if got := f.host(t, h).Status; got != want {
			t.Errorf("%s is %s, want %s", h, got, want)
		}
	}
	if l, _ := f.st.Lease(t.Context(), "default"); l != nil {
		t.Errorf("the lease outlived the batch: %+v", l)
	}
}
