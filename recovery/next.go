package recovery

import (
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// NextCommand is the command an operator types next for a cluster in state s, as the status
// page prints it: recover an operation in flight that nobody holds, retry a failed one (on host,
// the host that was worked on), or run the remaining steps. It is "" while a live lease holds
// the operation (wait) and once the upgrade is over. flags are the watcher's own global flags
// (--db, -i), kept so that the command works where it is pasted; the cluster is always named,
// since one watcher audits every cluster of the database.
func NextCommand(s state.State, host, cluster string, inFlight, leaseLive bool, flags []string) string {
	cmd := nextStep(s, host, inFlight, leaseLive)
	if cmd == "" {
		return ""
	}
	parts := append([]string{cmd}, flags...)
	return strings.Join(append(parts, "--cluster", cluster), " ")
}

// nextStep is NextCommand without the flags. inFlight: the state, or a host, is in flight.
func nextStep(s state.State, host string, inFlight, leaseLive bool) string {
	switch {
	case leaseLive:
		return ""
	case inFlight || s.InFlight():
		return "kupgrade recover"
	case s.Failed(), s == state.UpgradingKubelets && host != "":
		return state.RetryCommand(s, host)
	}
	for _, st := range state.Steps() {
		if st.Name != state.StepAbort && st.Allows(s) {
			return "kupgrade upgrade run"
		}
	}
	return ""
}
