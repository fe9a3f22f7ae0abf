package upgrade

import (
	"context"
	"fmt"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/state"
)

// Kubelets upgrades the kubelets of a batch of hosts (controllers before workers). A host whose
// kubelet already reports the target is marked upgraded-kubelet without running anything, unless
// force.
func (w *Workflow) Kubelets(ctx context.Context, hostnames []string, force bool) error {
	var hs []*inventory.Host
	for _, name := range hostnames {
		h, err := w.host(name)
		if err != nil {
			return err
		}
		hs = append(hs, h)
	}
	if u, err := w.Store.Upgrade(ctx, w.Cluster); err != nil {
		return err
	} else if err := w.leaseFree(ctx, u); err != nil {
		return err // another kupgrade's live lease: a conflict before any host is read
	}
	// Read what the kubelets report now: the skip decision must not trust a stale record.
	if err := w.refresh(ctx, hs, false); err != nil {
		return err
	}
	u, hosts, lease, err := w.read(ctx)
	if err != nil {
		return err
	}
	var run []*inventory.Host
	for _, h := range hs {
		skip, err := state.CheckKubelet(u, hosts, h.Name, lease, w.Store.Now())
		if err != nil {
			return err
		}
		if skip && !force {
			if u, err = w.markKubelet(ctx, u, hosts, h.Name); err != nil {
				return err
			}
			continue
		}
		run = append(run, h)
	}
	if len(run) == 0 {
		return nil
	}
	step, _ := state.StepNamed(state.StepKubelets)
	pb, err := w.playbook(step)
	if err != nil {
		return err
	}
	return w.execute(ctx, &op{
		step: step, from: u.State, hosts: run,
		hostFrom: statuses(hosts), hostTo: state.UpgradingKubelet, hostDone: state.UpgradedKubelet,
		target: u.ToVersion, pb: pb, kubeadm: true, vars: w.vars(u, nil),
		verify: func(ctx context.Context, h *inventory.Host, reg map[string]any) error {
			return w.verifyKubelet(ctx, h, u.ToVersion, reg)
		},
	})
}

// markKubelet records a host whose kubelet already runs the target as upgraded-kubelet.
func (w *Workflow) markKubelet(ctx context.Context, u state.Upgrade, hosts []state.Host, name string) (state.Upgrade, error) {
	after, err := w.Store.Apply(ctx, state.MarkKubelet(w.Cluster, state.ActorRunner, u.State, name, statuses(hosts)[name], u.ToVersion,
		state.Because(fmt.Sprintf("kubelet on %s already reports %s: nothing to run", name, u.ToVersion))))
	if err != nil {
		return u, err
	}
	w.stateChanged(name, u.State, after.State, fmt.Sprintf("%s: kubelet already at %s", name, u.ToVersion))
	return after, nil
}
