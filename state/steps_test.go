package state_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

// TestStepTable walks the step table and checks what the rest of kupgrade relies on: every
// in-flight running state has a failed twin the step may start from (so a failure can be
// retried), every in-flight state belongs to a step, and every step has a command, an alias
// and (unless it runs nothing on the hosts) a shipped playbook.
func TestStepTable(t *testing.T) {
	seen := map[string]bool{}
	running := map[state.State]bool{}
	for _, st := range state.Steps() {
		if st.Name == "" || seen[st.Name] {
			t.Errorf("step %q: empty or duplicate name", st.Name)
		}
		seen[st.Name] = true
		running[st.Running] = true
		if len(st.From) == 0 || !st.Done.Valid() || (st.Running != "" && !st.Running.Valid()) {
			t.Errorf("%s: from %v running %q done %q: not states of docs/states.md", st.Name, st.From, st.Running, st.Done)
		}
		for _, f := range st.From {
			if !f.Valid() || f.InFlight() {
				t.Errorf("%s: may start from %s, which is not a resting state", st.Name, f)
			}
		}
		if twin, ok := st.Running.FailedTwin(); ok && !st.Allows(twin) {
			t.Errorf("%s: its failed twin %s is not among its From states %v: no retry", st.Name, twin, st.From)
		}
		if st.Running.InFlight() == st.LongLived() && st.Running != "" {
			t.Errorf("%s: running state %s must be in flight unless long-lived", st.Name, st.Running)
		}
		if !strings.HasPrefix(st.Command, "kupgrade ") || !strings.HasPrefix(st.Alias, "kube-") {
			t.Errorf("%s: command %q, alias %q", st.Name, st.Command, st.Alias)
		}
		perHost := st.Scope == state.ScopeOneHost || st.Scope == state.ScopeControlPlane || st.Scope == state.ScopeKubeletBatch
		if perHost != strings.Contains(st.Command, "HOST") {
			t.Errorf("%s: command %q names HOST, scope %d", st.Name, st.Command, st.Scope)
		}
		noPlaybook := st.Scope == state.ScopeStoreOnly || st.Scope == state.ScopeVerify
		if (st.Playbook == "") != noPlaybook || (st.Running == "") != (st.Scope == state.ScopeStoreOnly) {
			t.Errorf("%s: playbook %q, running %q, scope %d: only a store-only step runs nothing, and only it and a verification run no playbook", st.Name, st.Playbook, st.Running, st.Scope)
		}
	}
	for _, s := range state.AllStates() {
		if s.InFlight() && !running[s] {
			t.Errorf("in-flight state %s is the running state of no step", s)
		}
	}
}

// TestStepOfAndCommandFor: a failed state leads back to the step that failed, and a command
// that needs a host gets it.
func TestStepOfAndCommandFor(t *testing.T) {
	for _, s := range state.AllStates() {
		if !s.Failed() {
			continue
		}
		inFlight, _ := s.RetryOf()
		st, ok := state.StepOf(s)
		if !ok || st.Running != inFlight {
			t.Errorf("StepOf(%s) = %q, %v: want the step running in %s", s, st.Name, ok, inFlight)
		}
	}
	if _, ok := state.StepOf(state.UpgradingKubelets); ok {
		t.Error("StepOf(upgrading-kubelets): a kubelet's failure is its host's, not a step's")
	}
	cp, _ := state.StepNamed(state.StepSecondMaster)
	if got := cp.CommandFor("c1"); got != "kupgrade host upgrade c1 control-plane" {
		t.Errorf("CommandFor(c1) = %q", got)
	}
	if got := cp.CommandFor(""); got != "" {
		t.Errorf("CommandFor(\"\") = %q, want \"\" (no host known)", got)
	}
	dl, _ := state.StepNamed(state.StepDownloadImages)
	if got := dl.CommandFor("c1"); got != "kupgrade upgrade download-images" {
		t.Errorf("CommandFor(c1) of a cluster step = %q", got)
	}
}

// TestTablesAreCopies: what state hands out cannot change its tables.
func TestTablesAreCopies(t *testing.T) {
	st := state.Steps()
	st[0].From[0], st[0].Name = state.UpgradeAborted, "mine"
	named, _ := state.StepNamed(state.StepDownloadImages)
	named.From[0] = state.UpgradeAborted
	all := state.AllStates()
	all[0] = "mine"
	del := state.DeletableStates()
	del[0] = state.UpgradeStarted

	again := state.Steps()[0]
	if again.Name != state.StepDownloadImages || again.From[0] != state.UpgradeStarted {
		t.Errorf("the step table changed through a copy: %+v", again)
	}
	if fresh, _ := state.StepNamed(state.StepDownloadImages); !fresh.Allows(state.UpgradeStarted) || fresh.Allows(state.UpgradeAborted) {
		t.Errorf("StepNamed's From changed through a copy: %v", fresh.From)
	}
	if state.AllStates()[0] != state.UpgradeStarted || !state.State("upgrade-started").Valid() {
		t.Error("AllStates changed through a copy")
	}
	if slices.Contains(state.DeletableStates(), state.UpgradeStarted) {
		t.Error("DeletableStates changed through a copy")
	}
}
