package upgrade

import (
	"context"
	"fmt"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/state"
)

// controlPlaneExec upgrades one controller's control plane (state.ScopeControlPlane): `kubeadm
// upgrade apply` on the first controller, `kubeadm upgrade node` on the others. Either
// control-plane step names it: the state decides which one runs (first-master, then
// second-master), as `host upgrade HOST control-plane` does.
type controlPlaneExec struct{}

func (controlPlaneExec) where(step state.Step, act Action, _ []string) ([]string, error) {
	if len(act.Hosts) != 1 {
		return nil, fmt.Errorf("step %s runs on one controller, not %v: %w", step.Name, act.Hosts, state.ErrBadInput)
	}
	return act.Hosts, nil
}

func (controlPlaneExec) check(_ state.Step, act Action, in view, v *verdict) error {
	h := act.Hosts[0]
	running, redo, err := state.CheckControlPlane(in.u, in.hosts, h, in.lease, in.now)
	note := ""
	if redo {
		note = fmt.Sprintf("redo: the control plane already reports %s (kubeadm skips identical manifests)", in.u.Target())
	}
	v.running, v.redo = running, redo
	return v.add("control-plane pre-check (state, lease, host status)", h, err, note)
}

func (e controlPlaneExec) run(ctx context.Context, w *Workflow, step state.Step, act Action) error {
	h, err := w.host(act.Hosts[0])
	if err != nil {
		return err
	}
	in, v, err := w.checked(ctx, e, step, act)
	if err != nil {
		return err
	}
	if v.redo {
		w.log().Info("control plane already reports the target: redo (kubeadm skips identical manifests)", "host", h.Name, "version", in.u.Target())
	}
	step, ok := state.StepOf(v.running)
	if !ok {
		return fmt.Errorf("no step runs in state %s: %w", v.running, state.ErrRefused)
	}
	pb, err := w.playbook(step)
	if err != nil {
		return err
	}
	first := v.running == state.UpgradingFirstMaster
	pre, err := w.snapshotPre(ctx, in.u, h, first)
	if err != nil {
		return err
	}
	return (&op{w: w, pre: pre,
		step: step, from: in.u.State, hop: in.u.Hop, hosts: []*inventory.Host{h},
		hostFrom: statuses(in.hosts), hostTo: state.UpgradingControlPlane, hostDone: state.HostIdle,
		target: in.u.Target(), pb: pb, kubeadm: true,
		vars:   w.vars(in.u, backupVars(in.hosts, h.Name, map[string]any{playbooks.VarFirstController: first, playbooks.VarRedo: v.redo})),
		before: playbooks.VarKcfgBefore,
		verify: func(ctx context.Context, h *inventory.Host, reg map[string]any) error {
			return e.verify(ctx, w, h, in.u.Target(), reg)
		},
	}).execute(ctx)
}

// verify checks that h's manifests carry target: from what the playbook registered as
// kcfg_after when it did (the shipped playbook reads them right after kubeadm), else over SSH.
func (controlPlaneExec) verify(ctx context.Context, w *Workflow, h *inventory.Host, target string, reg map[string]any) error {
	var v Versions
	snap, err := kubeadm.SnapshotFromValue(reg[playbooks.VarKcfgAfter])
	if err != nil || snap.Taken.IsZero() {
		if snap, err = w.readSnapshot(ctx, h); err != nil {
			return fmt.Errorf("verify %s: %w", h.Name, err)
		}
		v.Kubelet = snap.Installed.Kubelet
	}
	v.ControlPlane = snap.ControlPlaneVersion()
	w.recordBackups(ctx, h.Name, snap) // the folders kubeadm made, which abort restores from
	if v.ControlPlane != target {
		return fmt.Errorf("verify %s: the control-plane manifests report %s, want %s", h.Name, v.ControlPlane, target)
	}
	return w.Store.SetVersions(ctx, w.Cluster, h.Name, v.ControlPlane, v.Kubelet, w.Store.Now())
}

func (controlPlaneExec) after(step state.Step, act Action, in view) view {
	return in.done(step, act, func(h *state.Host, target string) {
		h.TargetVersion, h.ControlPlaneVersion, h.Status = target, target, state.HostIdle
	})
}

func statuses(hosts []state.Host) map[string]state.HostStatus {
	m := make(map[string]state.HostStatus, len(hosts))
	for _, h := range hosts {
		m[h.Hostname] = h.Status
	}
	return m
}
