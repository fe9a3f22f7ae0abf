package upgrade_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// Every playbook the step table ships is embedded in the binary and parses.
func TestShippedPlaybooksExist(t *testing.T) {
	for _, st := range state.Steps() {
		if st.Playbook == "" {
			continue
		}
		if _, err := playbooks.Embedded(st.Playbook); err != nil {
			t.Errorf("step %s ships playbook %q: %v", st.Name, st.Playbook, err)
		}
	}
}

// Every failed state can be retried, by the command of the step that failed: on the host that
// was tried when it is known, else through `upgrade run`, which finds it in the store.
func TestEveryFailedStateHasARetry(t *testing.T) {
	for _, s := range state.AllStates() {
		if !s.Failed() {
			continue
		}
		st, _ := state.StepOf(s)
		withHost, without := state.RetryCommand(s, "h0"), state.RetryCommand(s, "")
		if withHost != strings.ReplaceAll(st.Command, "HOST", "h0") {
			t.Errorf("RetryCommand(%s, h0) = %q, want the command of step %s", s, withHost, st.Name)
		}
		if without == "" || strings.Contains(without, "HOST") {
			t.Errorf("RetryCommand(%s, \"\") = %q", s, without)
		}
	}
}

// An action whose hosts do not fit its step's scope (or that names no step of the table) is
// refused before anything is read or run.
func TestActionsRefuseHostsOfAnotherScope(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedNetworking)
	played := len(f.c.plays)
	for _, act := range []upgrade.Action{
		{Step: state.StepCordon, Hosts: []string{"controller-0", "controller-1"}},
		{Step: state.StepStorage, Hosts: []string{"controller-0"}},
		{Step: state.StepFirstMaster},
		{Step: state.StepKubelets},
		{Step: state.StepComplete, Hosts: []string{"worker-0"}},
		{Step: "no-such-step"},
	} {
		if err := f.w.Do(t.Context(), act); !errors.Is(err, state.ErrBadInput) {
			t.Errorf("Do(%v) = %v, want bad input", act, err)
		}
	}
	if len(f.c.plays) != played {
		t.Errorf("played %v", f.c.plays[played:])
	}
	f.wantState(t, state.UpgradedNetworking)
}
