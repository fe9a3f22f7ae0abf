package upgrade

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// kubeletsStillBack refuses an abort once a kubelet runs a version other than the upgrade's
// from version (read live on every host, so that kubelets taken back by hand count as back):
// rolling the control plane back under them would leave kubelets newer than their API server,
// which Kubernetes does not support. Nothing is written.
func (w *Workflow) kubeletsStillBack(ctx context.Context, u state.Upgrade) error {
	vs, err := w.ReadVersions(ctx, w.Inventory.Hosts, false)
	if err != nil {
		return fmt.Errorf("abort: read every kubelet's version before rolling the control plane back: %w", err)
	}
	var moved []string
	for name, v := range vs {
		if v.Kubelet != "" && v.Kubelet != u.FromVersion {
			moved = append(moved, name+" at "+v.Kubelet)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	slices.Sort(moved)
	err = fmt.Errorf("%w: abort refused: kubelets were upgraded (%s); rolling the control plane back to %s under them would leave kubelets newer than their API server, which Kubernetes does not support, and this kupgrade does not take kubelets back",
		state.ErrRefused, strings.Join(moved, ", "), u.FromVersion)
	return state.WithNextSteps(err, "; finish the upgrade instead (`%s`), or take each of those kubelets back by hand (drain it, install kubelet "+
		u.FromVersion+", put back the /var/lib/kubelet/config.yaml kubeadm saved in /etc/kubernetes/tmp/kubeadm-kubelet-config*, restart it, uncordon it), then `%s`",
		state.Next("upgrade", "run"), state.Next("upgrade", "abort"))
}
