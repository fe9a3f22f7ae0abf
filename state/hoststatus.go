package state

import "slices"

// HostStatus is kube_host_upgrade.status; HostIdle is SQL NULL.
type HostStatus string

// Host statuses of docs/states.md. A host's kubelet step walks draining-node (cordon and
// drain), upgrading-kubelet (kubeadm upgrade node on a worker, the packages, the restart, the
// node Ready again) and uncordoning-node, to upgraded-kubelet. `upgrade abort --kubelets` takes a
// kubelet back through the same drain and uncordon, with downgrading-kubelet between them, to idle.
const (
	HostIdle              HostStatus = ""
	UpgradingControlPlane HostStatus = "upgrading-control-plane"
	DrainingNode          HostStatus = "draining-node"
	DrainingNodeFailed    HostStatus = "draining-node-failed"
	UpgradingKubelet      HostStatus = "upgrading-kubelet"
	// UpgradingKubeletFailed is a host whose kubelet step failed (StarlingX's name): in the
	// kubelet phase, or before the step could start on it (a host unreachable, a sudo that asks
	// for a password). Its retry drains again, as from idle.
	UpgradingKubeletFailed HostStatus = "upgrading-kubelet-failed"
	DowngradingKubelet     HostStatus = "downgrading-kubelet"
	UncordoningNode        HostStatus = "uncordoning-node"
	UncordoningNodeFailed  HostStatus = "uncordoning-node-failed"
	UpgradedKubelet        HostStatus = "upgraded-kubelet"
)

// hostFailedTwin is the host-level failed map: every in-flight host status and the status that
// failing it leads to. It is the only place this knowledge lives. A control plane or a kubelet
// taken back that fails goes back to idle (the cluster's failed state flags it, and its retry
// starts the step again); a drain, a kubelet or an uncordon that fails keeps its own failed twin,
// which flags the host while the cluster stays upgrading-kubelets, and the retry starts where
// it stopped (a failed kubelet's with the drain, as the step's start).
var hostFailedTwin = map[HostStatus]HostStatus{
	UpgradingControlPlane: HostIdle,
	DrainingNode:          DrainingNodeFailed,
	UpgradingKubelet:      UpgradingKubeletFailed,
	DowngradingKubelet:    HostIdle,
	UncordoningNode:       UncordoningNodeFailed,
}

// kubeletPhases are the in-flight statuses of a host's kubelet step, in the order it walks them.
var kubeletPhases = []HostStatus{DrainingNode, UpgradingKubelet, UncordoningNode}

// abortKubeletPhases are the in-flight statuses of taking a kubelet back (upgrade abort
// --kubelets), in order; after the last the host is idle again, as before the upgrade.
var abortKubeletPhases = []HostStatus{DrainingNode, DowngradingKubelet, UncordoningNode}

// allHostStatuses lists every host status but idle, in the order of docs/states.md.
var allHostStatuses = []HostStatus{
	UpgradingControlPlane, DrainingNode, DrainingNodeFailed, UpgradingKubelet, UpgradingKubeletFailed,
	UncordoningNode, UncordoningNodeFailed, UpgradedKubelet, DowngradingKubelet,
}

// AllHostStatuses returns every host status but idle, in the order of docs/states.md.
func AllHostStatuses() []HostStatus { return slices.Clone(allHostStatuses) }

// InFlightHostStatuses returns the host statuses in which work on a host runs (or was running
// when it died), for the store's queries.
func InFlightHostStatuses() []HostStatus {
	var out []HostStatus
	for _, h := range allHostStatuses {
		if h.InFlight() {
			out = append(out, h)
		}
	}
	return out
}

// Valid reports whether h is idle or one of the host statuses of docs/states.md.
func (h HostStatus) Valid() bool { return h == HostIdle || slices.Contains(allHostStatuses, h) }

// InFlight reports whether work on the host is running (or was running when it died).
func (h HostStatus) InFlight() bool { _, ok := hostFailedTwin[h]; return ok }

// Failed reports whether h is the failed twin a host keeps (a drain, a kubelet or an uncordon
// that failed).
func (h HostStatus) Failed() bool { return h != HostIdle && h.RetryOf() != "" }

// RetryOf returns the in-flight status whose failure h records, "" when h records none.
func (h HostStatus) RetryOf() HostStatus {
	for inFlight, failed := range hostFailedTwin {
		if failed == h && failed != HostIdle {
			return inFlight
		}
	}
	return ""
}

// FailedTo is the status that failing a host in status h writes: h's failed twin when h is in
// flight, h itself when it is already a failed twin, else idle (a status left behind).
func (h HostStatus) FailedTo() HostStatus {
	if twin, ok := hostFailedTwin[h]; ok {
		return twin
	}
	if h.Failed() {
		return h
	}
	return HostIdle
}

// KubeletEntry is the status a host in status h enters when its kubelet step starts: the phase
// whose failure h records (a retry starts where it stopped), else the first phase, the drain. A
// failed kubelet phase starts from the drain again, as it did when it failed back to idle: the
// drain of a node still cordoned and drained is quick, and proves it is still drained.
func (h HostStatus) KubeletEntry() HostStatus {
	if r := h.RetryOf(); slices.Contains(kubeletPhases, r) && r != UpgradingKubelet {
		return r
	}
	return kubeletPhases[0]
}

// NextKubeletPhase is the status that follows the kubelet phase h when it succeeds: the next
// phase, and upgraded-kubelet after the last. ok is false when h is no phase of the kubelet step.
func (h HostStatus) NextKubeletPhase() (next HostStatus, ok bool) {
	i := slices.Index(kubeletPhases, h)
	switch {
	case i < 0:
		return "", false
	case i == len(kubeletPhases)-1:
		return UpgradedKubelet, true
	}
	return kubeletPhases[i+1], true
}

// KubeletPhase reports whether h is one of the in-flight phases of the kubelet step or of
// taking a kubelet back.
func (h HostStatus) KubeletPhase() bool {
	return slices.Contains(kubeletPhases, h) || slices.Contains(abortKubeletPhases, h)
}

// KubeletPhases returns the in-flight statuses of the kubelet step, in order.
func KubeletPhases() []HostStatus { return slices.Clone(kubeletPhases) }

// AbortKubeletPhases returns the in-flight statuses of taking a kubelet back, in order.
func AbortKubeletPhases() []HostStatus { return slices.Clone(abortKubeletPhases) }

// String prints NULL's meaning for people.
func (h HostStatus) String() string {
	if h == HostIdle {
		return "-"
	}
	return string(h)
}
