package watch

import (
	"slices"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
)

// FailedHosts are the hosts of hosts left in a failed status (a kubelet, a drain or an uncordon
// that failed, or a kubelet step that failed before it could start on the host), in order.
func FailedHosts(hosts []state.Host) []state.Host {
	var out []state.Host
	for _, h := range hosts {
		if h.Status.Failed() {
			out = append(out, h)
		}
	}
	return out
}

// CurrentFailure is the failure of upgrade u that still needs a person, read from u's hosts and
// its cluster's events (newest first), never from an older upgrade of the same cluster nor from
// a failure its retry has since resolved: the newest failure of u when u is in a failed state;
// else the newest failure on a host left in a failed status; else the newest event of u when it
// is a failure that nothing has followed (a step that failed before it changed anything).
func CurrentFailure(u state.Upgrade, hosts []state.Host, evs []state.Event) (Failure, bool) {
	own := slices.DeleteFunc(slices.Clone(evs), func(e state.Event) bool { return e.UpgradeUUID != u.UUID })
	if u.State.Failed() {
		return LastFailure(own)
	}
	if failed := FailedHosts(hosts); len(failed) > 0 {
		onFailed := slices.DeleteFunc(own, func(e state.Event) bool {
			return !slices.ContainsFunc(failed, func(h state.Host) bool { return h.Hostname == e.Hostname })
		})
		return LastFailure(onFailed)
	}
	for i, e := range own {
		ev, err := recovery.ParseEvidence(e.Evidence)
		switch {
		case err == nil && isFailure(e, ev):
			return LastFailure(own[i:])
		case e.FromState != e.ToState || e.FromHostStatus != e.ToHostStatus:
			return Failure{}, false // something moved on since
		}
	}
	return Failure{}, false
}

// isFailure reports whether e records a failure: a move into a failed state, or evidence of an
// error or of a stuck operation (a kubelet's failure leaves the cluster state as it was).
func isFailure(e state.Event, ev recovery.Evidence) bool {
	return ev.Error != "" || ev.DetectedBy != "" || e.ToState.Failed() && e.FromState != e.ToState
}
