package kubeadm

import (
	"fmt"

	"github.com/kupgrade/kupgrade/state"
)

// Finding classes of the kubelet step's node phases, where kubeadm does not run: the drain
// (draining-node) and the uncordon (uncordoning-node). Their advice is about the node and what
// kept it from draining or from being uncordoned, never about kubeadm's files.
const (
	FindingDrainBlocked   FindingClass = "drain-blocked"
	FindingUncordonFailed FindingClass = "uncordon-failed"
)

// NodePhaseFinding is the finding of host failed in the node phase status (a drain or an
// uncordon), without a probe: cause is what failed it (the drain's message names the pods and
// the budgets that blocked it; "" when nothing said, a runner that died). ok is false when
// status is no node phase: kubeadm may have run, and the probe judges it.
func NodePhaseFinding(status state.HostStatus, host, cause string) (f Finding, ok bool) {
	why := ""
	if cause != "" {
		why = ": " + cause
	}
	switch status {
	case state.DrainingNode:
		return Finding{Class: FindingDrainBlocked,
			Summary: fmt.Sprintf("the drain of %s did not finish%s; kubeadm has not run and no package was installed on it, and it stays cordoned (by kupgrade: the retry uncordons it at the end)", host, why),
			Next: "make the drain possible: a PodDisruptionBudget that allows no disruption needs more ready replicas (or a relaxed budget) for its pods to be evicted, and a pod of no controller needs kupgrade_drain_force; " +
				"`kubectl get pdb -A` shows the budgets; then retry: the drain starts again"}, true
	case state.UncordoningNode:
		return Finding{Class: FindingUncordonFailed,
			Summary: fmt.Sprintf("the kubelet of %s is upgraded, but the node was not uncordoned%s", host, why),
			Next:    "check that the node is Ready and that kubectl on the controller reaches the API server; then retry: only the uncordon runs again (no kubeadm, no install)"}, true
	}
	return Finding{}, false
}
