package upgrade

import "github.com/kupgrade/kupgrade/state"

// RetryCommand is the exact command that retries the operation whose failure s records; host is
// the host that was being worked on ("" when none). It returns "" when s is not a failed state
// (or upgrading-kubelets with no host).
func RetryCommand(s state.State, host string) string {
	if st, ok := longLivedStep(s); ok {
		return st.CommandFor(host) // a kubelet's failure is its host's: without one, nothing to retry
	}
	inFlight, ok := s.RetryOf()
	if !ok {
		return ""
	}
	step, ok := state.StepOf(inFlight)
	if !ok {
		return ""
	}
	if cmd := step.CommandFor(host); cmd != "" {
		return cmd
	}
	return "kupgrade upgrade run" // it finds the host that was tried in the store
}

// longLivedStep returns the step whose long-lived running state is s (kubelets).
func longLivedStep(s state.State) (state.Step, bool) {
	for _, st := range state.Steps() {
		if st.LongLived() && st.Running == s {
			return st, true
		}
	}
	return state.Step{}, false
}
