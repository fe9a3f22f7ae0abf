package upgrade

import (
	"fmt"

	"github.com/kupgrade/kupgrade/state"
)

// RetryCommand is the exact command that retries the operation whose failure s records; host is
// the host that was being worked on ("" when none). It returns "" when s is not a failed state
// (or upgrading-kubelets with no host).
func RetryCommand(s state.State, host string) string {
	if s == state.UpgradingKubelets && host != "" {
		return fmt.Sprintf("kupgrade host upgrade %s kubelet", host)
	}
	inFlight, ok := s.RetryOf()
	if !ok {
		return ""
	}
	step, ok := state.StepOf(inFlight)
	if !ok {
		return ""
	}
	switch step.Name {
	case state.StepFirstMaster, state.StepSecondMaster:
		if host == "" {
			return "kupgrade upgrade run"
		}
		return fmt.Sprintf("kupgrade host upgrade %s control-plane", host)
	case state.StepCordon, state.StepUncordon:
		if host == "" {
			return "kupgrade upgrade run"
		}
		return fmt.Sprintf("kupgrade host %s %s", step.Name, host)
	case state.StepAbort:
		return "kupgrade upgrade abort"
	default:
		return "kupgrade upgrade " + step.Name
	}
}
