package upgrade

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/state"
)

// Kubelets go back before the control plane does: Kubernetes never supports a kubelet newer than
// its API server, and while the control plane still runs the upgrade's target every kubelet
// taken back to the from version is older than it, which the skew policy allows. Among the
// kubelets the order is free as far as skew goes; abort takes the workers back first and the
// controllers last, the upgrade's order reversed, so that the controllers that run the drains
// (kubectl with admin.conf) and the API servers keep their kubelets until the workers are back.

// kubeletBack is a host whose kubelet abort --kubelets takes back.
type kubeletBack struct {
	host *inventory.Host
	why  string // for people: "worker-0 at v1.30.1"
	// entry is the phase it enters: draining-node, or uncordoning-node when its kubelet runs the
	// from version already and only kupgrade's cordon is left.
	entry state.HostStatus
	snap  kubeadm.Snapshot // as read now: the kubeadm-kubelet-config folders it holds
}

// kubeletsMoved reads every node's kubelet (the inventory's Nodes: `kubelet --version`, and the
// node as the API server reports it when it answers) and returns the hosts whose kubelet this
// upgrade moved off the from version, or whose node kupgrade left cordoned, workers first.
func (w *Workflow) kubeletsMoved(ctx context.Context, u state.Upgrade, rows []state.Host) ([]kubeletBack, error) {
	snaps, err := w.readSnapshots(ctx, w.Inventory.Nodes())
	if err != nil {
		return nil, fmt.Errorf("abort: read every kubelet's version before rolling the control plane back: %w", err)
	}
	nodes, err := w.nodes(ctx)
	if err != nil { // the control plane may be what is broken: the binaries still say
		w.log().Warn("abort: the API server did not list the nodes; deciding from `kubelet --version` alone", "error", err)
	}
	status := statuses(rows)
	var out []kubeletBack
	for _, h := range abortOrder(w.Inventory.Nodes()) {
		b := kubeletBack{host: h, entry: state.DrainingNode, snap: snaps[h.Name]}
		n, listed := nodes[h.NodeName()]
		switch v := b.snap.Installed.Kubelet; {
		case v != "" && v != u.FromVersion:
			b.why = h.Name + " at " + v
		case listed && n.Kubelet != "" && n.Kubelet != u.FromVersion:
			b.why = fmt.Sprintf("%s running %s (its node says; the kubelet was not restarted since)", h.Name, n.Kubelet)
		case listed && n.CordonedBy != "":
			b.why, b.entry = h.Name+" cordoned by kupgrade", state.UncordoningNode
		case status[h.Name].Failed():
			b.why, b.entry = fmt.Sprintf("%s left %s", h.Name, status[h.Name]), state.UncordoningNode
		default:
			continue
		}
		out = append(out, b)
	}
	return out, nil
}

// abortOrder is hs with the workers first, then the controllers, each in the inventory's order.
func abortOrder(hs []*inventory.Host) []*inventory.Host {
	out := slices.Clone(hs)
	slices.SortStableFunc(out, func(a, b *inventory.Host) int {
		ca, cb := state.Personality(a.Personality()) == state.Controller, state.Personality(b.Personality()) == state.Controller
		switch {
		case ca == cb:
			return 0
		case cb:
			return -1
		}
		return 1
	})
	return out
}

// refuseKubelets refuses an abort without --kubelets once a kubelet this upgrade moved is not
// back (read live, so that kubelets taken back by hand count as back): rolling the control plane
// back under it would leave a kubelet newer than its API server. It says what --kubelets does.
// Nothing is written.
func refuseKubelets(u state.Upgrade, backs []kubeletBack) error {
	if len(backs) == 0 {
		return nil
	}
	whys := make([]string, len(backs))
	for i, b := range backs {
		whys[i] = b.why
	}
	minor := u.FromVersion
	if v, err := state.ParseVersion(u.FromVersion); err == nil {
		minor = fmt.Sprintf("v%d.%d", v.Major, v.Minor)
	}
	err := fmt.Errorf("%w: abort refused: kubelets this upgrade moved are not back at %s (%s); rolling the control plane back to %s under them would leave kubelets newer than their API server, which Kubernetes does not support",
		state.ErrRefused, u.FromVersion, strings.Join(whys, ", "), u.FromVersion)
	return state.WithNextSteps(err, "; `%s` takes them back first, one host at a time, workers before controllers: it drains the node (eviction API, budgets respected), installs kubelet and kubectl "+
		u.FromVersion+" (the package repository moved back to "+minor+"), puts back the /var/lib/kubelet/config.yaml kubeadm saved, restarts the kubelet, waits for the node Ready at "+
		u.FromVersion+" and uncordons it; then the control plane goes back. Or finish the upgrade instead: `%s`",
		state.Next("upgrade", "abort", "--kubelets"), state.Next("upgrade", "run"))
}

// readSnapshots reads every host of hs over SSH, all at once; a host that cannot be read, or
// whose kubelet reports no version, is an error naming it.
func (w *Workflow) readSnapshots(ctx context.Context, hs []*inventory.Host) (map[string]kubeadm.Snapshot, error) {
	snaps := make([]kubeadm.Snapshot, len(hs))
	errs := make([]error, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Go(func() {
			if snaps[i], errs[i] = w.readSnapshot(ctx, h); errs[i] == nil {
				errs[i] = snaps[i].Installed.KubeletErr()
			}
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", h.Name, errs[i])
			}
		})
	}
	wg.Wait()
	out := make(map[string]kubeadm.Snapshot, len(hs))
	for i, h := range hs {
		out[h.Name] = snaps[i]
	}
	return out, errors.Join(errs...)
}
