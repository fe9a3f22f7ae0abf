//go:build integration

package integration_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/internal/sim/contract"
)

// labNode is the contract's node on a Docker lab node, reset between cases through the lab's
// own node API (docker exec as root, InjectFault) and its lib.sh.
type labNode struct {
	l *lab.Lab
	n *lab.Node
}

// resetScript lays the node out as kupgrade-lab-init does, at $1 (kubeadm at $2, the cluster at
// $3, manifests when $4 is controller), with no fault and no kubeadm folders left.
const resetScript = `set -e
. /usr/share/kupgrade-lab/lib.sh
rm -rf "$FAULT_FILE" "$KTMP" "$MANIFESTS"/*.yaml
if [ "$4" = controller ]; then
    for c in $COMPONENTS; do render "$c.yaml" "$1" > "$MANIFESTS/$c.yaml"; done
fi
render kubelet-config.yaml "$1" > "$KUBELET_CONFIG"
echo "$1" > "$LAB/kubelet-installed"
echo "$1" > "$LAB/kubelet-running"
echo "$2" > "$LAB/kubeadm-version"
mkdir -p "$SHARED/nodes/$NODE_NAME"
echo "$1" | write_atomic "$SHARED/nodes/$NODE_NAME/kubelet-version"
echo "$3" | write_atomic "$SHARED/cluster-version"
publish_pods`

func (n labNode) Reset(ctx context.Context, s contract.Setup) error {
	role := "controller"
	if s.Worker {
		role = "worker"
	}
	if _, err := n.n.Exec(ctx, "bash", "-c", resetScript, "reset", s.Version, s.Kubeadm, s.Cluster, role); err != nil {
		return err
	}
	if s.Fault == nil {
		return nil
	}
	f := lab.Fault{Phase: s.Fault.Phase, Before: s.Fault.Before, Action: lab.Action(s.Fault.Action),
		Status: s.Fault.Status, Seconds: s.Fault.Seconds, Once: s.Fault.Once, Check: s.Fault.Check}
	if f.String() != s.Fault.String() {
		return fmt.Errorf("the lab writes fault %q, the simulator %q", f.String(), s.Fault.String())
	}
	return n.n.InjectFault(ctx, f)
}

func (n labNode) Target() (string, string) { return n.l.Inventory(), n.n.Name }

func (n labNode) ReadFile(ctx context.Context, p string) (string, bool, error) {
	out, err := n.n.Exec(ctx, "sh", "-c", `[ -f "$0" ] || exit 3; cat "$0"`, p)
	var ee *lab.ExitError
	if errors.As(err, &ee) && ee.Status == 3 {
		return "", false, nil
	}
	return out, err == nil, err
}

func (n labNode) ReadDir(ctx context.Context, p string) ([]string, error) {
	out, err := n.n.Exec(ctx, "sh", "-c", `[ ! -d "$0" ] || ls -1A "$0"`, p)
	return strings.Fields(out), err
}

// TestContract runs the contract of the simulated nodes (internal/sim/contract) against one
// node of a Docker lab, as `go test ./internal/sim/...` runs it against a simulated host.
func TestContract(t *testing.T) {
	l := lab.Start(t, lab.Options{Controllers: 1, FromVersion: contract.From})
	contract.Run(t, labNode{l, l.Node("controller-0")})
}
