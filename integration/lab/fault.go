package lab

import (
	"context"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/internal/sim"
)

// FaultFile is where the simulated kubeadm, apt-get, kubectl and etcdctl look for a fault on a
// node.
const FaultFile = sim.FaultFile

// The fault vocabulary is the simulator's (internal/sim), so that a scenario moves between the
// two labs unchanged: the same phases, actions and fault file. The Docker lab fires every phase;
// the simulator those sim.Simulated names.
type (
	// Fault is one injected failure on one node.
	Fault = sim.Fault
	// Action is what a fault does when it fires.
	Action = sim.Action
)

// Phases, the phase names and the actions: see internal/sim.
var Phases = sim.Phases

const (
	PhaseKubeletStatus = sim.PhaseKubeletStatus
	PhaseEtcdSnapshot  = sim.PhaseEtcdSnapshot
	Exit               = sim.Exit
	Hang               = sim.Hang
	Drop               = sim.Drop
	Delay              = sim.Delay
	Stale              = sim.Stale
)

// InjectFault arms f on the node, replacing any fault there.
func (n *Node) InjectFault(ctx context.Context, f Fault) error {
	if err := f.Validate(); err != nil {
		return err
	}
	// Written to a temporary name and renamed, so kubeadm never reads half a fault.
	_, err := execIn(ctx, n.lab.pool.Client, n.container(), strings.NewReader(f.String()),
		"sh", "-c", `cat > "$0.tmp" && mv -f "$0.tmp" "$0"`, FaultFile)
	if err != nil {
		return fmt.Errorf("inject fault on %s: %w", n.Name, err)
	}
	return nil
}

// ClearFault removes the node's fault, if any.
func (n *Node) ClearFault(ctx context.Context) error {
	if _, err := n.Exec(ctx, "rm", "-f", FaultFile); err != nil {
		return fmt.Errorf("clear fault on %s: %w", n.Name, err)
	}
	return nil
}
