package state

// RetryCommand is the exact command that retries the operation whose failure s records; host is
// the host that was being worked on ("" when none). It returns "" when s is not a failed state
// (or upgrading-kubelets with no host). The CLI's hints, recover and the status page all print
// this one.
func RetryCommand(s State, host string) string {
	for _, st := range steps {
		if st.LongLived() && st.Running == s {
			return st.CommandFor(host) // a kubelet's failure is its host's: without one, nothing to retry
		}
	}
	inFlight, ok := s.RetryOf()
	if !ok {
		return ""
	}
	step, ok := StepOf(inFlight)
	if !ok {
		return ""
	}
	if cmd := step.CommandFor(host); cmd != "" {
		return cmd
	}
	return "kupgrade upgrade run" // it finds the host that was tried in the store
}
