package upgrade

import (
	"context"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/state"
)

// Abort rolls the controllers back to what the first control-plane step of this upgrade found
// on each, from the backup folders kubeadm made during this upgrade alone, and
// ends in upgrade-aborted only once every controller's versions are verified to be back;
// otherwise upgrade-aborting-failed names what differs (a second abort retries it). Controllers
// this upgrade never touched are left alone. Once a kubelet was upgraded abort refuses.
func (w *Workflow) Abort(ctx context.Context) error {
	step, _ := state.StepNamed(state.StepAbort)
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
	hosts, err := w.Store.Hosts(ctx, w.Cluster)
	if err != nil {
		return err
	}
	cs, err := w.controllerHosts()
	if err != nil {
		return err
	}
	if err := w.kubeletsStillBack(ctx, u); err != nil {
		return err
	}
	plan, err := w.abortPlan(ctx, u, hosts, cs)
	if err != nil {
		return err
	}
	if len(plan) == 0 {
		if err := w.writeVersions(ctx, cs); err != nil {
			w.log().Warn("abort: the versions read were not recorded", "error", err)
		}
		return w.abortUntouched(ctx, u)
	}
	pb, err := w.playbook(step)
	if err != nil {
		return err
	}
	targets := make([]*inventory.Host, len(plan))
	for i, r := range plan {
		targets[i] = r.host
	}
	return (&op{w: w, step: step, from: u.State, hosts: targets, clusterOnly: true, pb: pb,
		vars:  w.vars(u, map[string]any{playbooks.VarAbortRestore: restoreVars(plan)}),
		check: func(ctx context.Context) error { return w.verifyAbort(ctx, u, plan, cs) }}).execute(ctx)
}

// verifyAbort reads every controller again after the restore (manifests, config.yaml, and what
// kubelet and kubeadm report), writes the versions read into the host table, and fails naming
// each difference from what the upgrade found there.
func (w *Workflow) verifyAbort(ctx context.Context, u state.Upgrade, plan []restore, cs []*inventory.Host) error {
	restored := map[string]state.Backups{}
	for _, r := range plan {
		restored[r.host.Name] = r.before
	}
	var diffs []string
	for _, h := range cs {
		c, err := w.Runner.Conn(ctx, h)
		if err != nil {
			return fmt.Errorf("verify the abort on %s: %w", h.Name, err)
		}
		snap, err := w.readProbe(ctx, c)
		if err != nil {
			return fmt.Errorf("verify the abort on %s: %w", h.Name, err)
		}
		if err := w.Store.SetVersions(ctx, w.Cluster, h.Name, snap.ControlPlaneVersion(), snap.Installed.Kubelet, w.Store.Now()); err != nil {
			w.log().Warn("abort: the versions read were not recorded", "host", h.Name, "error", err)
		}
		var d []string
		if before, ok := restored[h.Name]; ok {
			d = differences(before, snap)
		} else if v := snap.ControlPlaneVersion(); v != "" && v != u.FromVersion {
			d = []string{fmt.Sprintf("control plane at %s, want %s", v, u.FromVersion)}
		}
		if len(d) > 0 {
			diffs = append(diffs, h.Name+": "+strings.Join(d, ", "))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("after the restore, not back where the upgrade started: %s", strings.Join(diffs, "; "))
	}
	return nil
}

// writeVersions reads hs' versions and writes them into the host table.
func (w *Workflow) writeVersions(ctx context.Context, hs []*inventory.Host) error {
	return w.refresh(ctx, hs, true)
}
