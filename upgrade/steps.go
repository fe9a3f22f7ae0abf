package upgrade

import (
	"context"
	"fmt"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/state"
)

func (w *Workflow) vars(u state.Upgrade, extra map[string]any) map[string]any {
	v := map[string]any{
		playbooks.VarToVersion:      u.ToVersion,
		playbooks.VarFromVersion:    u.FromVersion,
		playbooks.VarCluster:        u.Cluster,
		playbooks.VarKubeadmTimeout: w.kubeadmTimeout().String(),
	}
	for k, x := range extra {
		v[k] = x
	}
	return v
}

// ClusterStep runs a step that is not about one host (scope state.ScopeControllers):
// download-images, pre-app-update, networking, storage, post-app-update. It runs on the
// controllers.
func (w *Workflow) ClusterStep(ctx context.Context, name string) error {
	cs, err := w.controllerHosts()
	if err != nil {
		return err
	}
	return w.stepOn(ctx, name, state.ScopeControllers, cs)
}

// stepOn runs the step called name, of the given scope, on hosts, with no host status of its
// own (cluster steps, cordon, uncordon, abort): lease and state pre-checks, then the step's
// playbook.
func (w *Workflow) stepOn(ctx context.Context, name string, scope state.Scope, hosts []*inventory.Host) error {
	step, ok := state.StepNamed(name)
	if !ok || step.Running == "" {
		return fmt.Errorf("unknown step %q: %w", name, state.ErrBadInput)
	}
	if step.Scope != scope {
		return fmt.Errorf("step %s does not run this way (see its command, %s): %w", name, step.Command, state.ErrBadInput)
	}
	u, err := w.Store.Upgrade(ctx, w.Cluster)
	if err != nil {
		return err
	}
	if err := w.leaseFree(ctx, u); err != nil {
		return err
	}
	if err := state.CheckStep(u, step); err != nil {
		return err
	}
	pb, err := w.playbook(step)
	if err != nil {
		return err
	}
	return w.execute(ctx, &op{step: step, from: u.State, hosts: hosts, clusterOnly: true, pb: pb, vars: w.vars(u, nil)})
}

// ControlPlane upgrades HOST's control plane: `kubeadm upgrade apply` on the first controller,
// `kubeadm upgrade node` on the others.
func (w *Workflow) ControlPlane(ctx context.Context, hostname string) error {
	h, err := w.host(hostname)
	if err != nil {
		return err
	}
	u, hosts, lease, err := w.read(ctx)
	if err != nil {
		return err
	}
	running, redo, err := state.CheckControlPlane(u, hosts, hostname, lease, w.Store.Now())
	if err != nil {
		return err
	}
	if redo {
		w.log().Info("control plane already reports the target: redo (kubeadm skips identical manifests)", "host", hostname, "version", u.ToVersion)
	}
	step, ok := state.StepOf(running)
	if !ok {
		return fmt.Errorf("no step runs in state %s: %w", running, state.ErrRefused)
	}
	pb, err := w.playbook(step)
	if err != nil {
		return err
	}
	first := running == state.UpgradingFirstMaster
	return w.execute(ctx, &op{
		step: step, from: u.State, hosts: []*inventory.Host{h},
		hostFrom: statuses(hosts), hostTo: state.UpgradingControlPlane, hostDone: state.HostIdle,
		target: u.ToVersion, pb: pb, kubeadm: true,
		vars:   w.vars(u, map[string]any{playbooks.VarFirstController: first, playbooks.VarRedo: redo}),
		before: playbooks.VarKcfgBefore,
		verify: func(ctx context.Context, h *inventory.Host, reg map[string]any) error {
			return w.verifyControlPlane(ctx, h, u.ToVersion, reg)
		},
	})
}

func statuses(hosts []state.Host) map[string]state.HostStatus {
	m := make(map[string]state.HostStatus, len(hosts))
	for _, h := range hosts {
		m[h.Hostname] = h.Status
	}
	return m
}
