package upgrade

import (
	"context"
	"fmt"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/state"
)

// controllerHosts are the inventory's controllers; a step that runs on them is refused before
// anything is written when there are none.
func (w *Workflow) controllerHosts() ([]*inventory.Host, error) {
	cs := w.Inventory.Controllers()
	if len(cs) == 0 {
		return nil, fmt.Errorf("inventory %s has no controller (group controllers or kube_control_plane, or kupgrade_personality: controller): %w", w.Inventory.Path, state.ErrBadInput)
	}
	return cs, nil
}

// Abort restores the control-plane manifests from kubeadm's backups on the controllers and ends
// in upgrade-aborted (upgrade-aborting-failed when that fails, which a second abort retries).
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
	if !controlPlaneTouched(u, hosts) {
		// The database says no control-plane step started; the hosts have the last word (a
		// hand edit, a kubeadm run by hand or by a tool that recorded nothing).
		touched, err := w.manifestsMoved(ctx, u, cs)
		if err != nil {
			return err
		}
		if !touched {
			return w.abortUntouched(ctx, u)
		}
	}
	return clusterExec{}.run(ctx, w, step, Action{Step: step.Name})
}

// manifestsMoved probes the controllers and reports whether any control plane moved away from
// the upgrade's from_version, or a manifest swap was left half done. An unreachable controller
// is an error: nothing can be decided without it.
func (w *Workflow) manifestsMoved(ctx context.Context, u state.Upgrade, cs []*inventory.Host) (bool, error) {
	for _, h := range cs {
		c, err := w.Runner.Conn(ctx, h)
		if err != nil {
			return false, fmt.Errorf("abort: look at %s's manifests before deciding there is nothing to restore: %w", h.Name, err)
		}
		snap, err := w.probe(ctx, c)
		if err != nil {
			return false, fmt.Errorf("abort: probe %s: %w", h.Name, err)
		}
		if v := snap.ControlPlaneVersion(); (v != "" && v != u.FromVersion) || len(snap.UpgradedManifestsDirs) > 0 {
			w.log().Info("abort: the manifests moved although no control-plane step was recorded", "host", h.Name, "version", v)
			return true, nil
		}
	}
	return false, nil
}

// controlPlaneTouched: a control-plane step has been started on some controller (its target was
// set), so its manifests may have moved and abort must restore them.
func controlPlaneTouched(u state.Upgrade, hosts []state.Host) bool {
	for _, h := range hosts {
		if h.Personality == state.Controller && h.TargetVersion == u.ToVersion {
			return true
		}
	}
	return false
}

// abortUntouched aborts an upgrade that changed nothing on the hosts: no remote work, two
// transitions (upgrade-aborting, then upgrade-aborted), each compare-and-set.
func (w *Workflow) abortUntouched(ctx context.Context, u state.Upgrade) error {
	reason := "abort: no control plane was touched, nothing to restore"
	// upgrade-aborting is in flight: it holds a lease like any other operation, so that a crash
	// between the two writes is failed by the audit once the lease expires.
	mid, err := w.Store.Apply(ctx, state.Start(w.Cluster, state.ActorCLI, u.State, state.UpgradeAborting,
		state.LeaseSpec{Owner: w.owner(), Operation: state.StepAbort, TTL: w.ttl()}, state.Because(reason)))
	if err != nil {
		return err
	}
	w.stateChanged(state.WholeCluster, u.State, mid.State, reason)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.recordFor())
	defer cancel()
	var end state.Upgrade
	err = w.retryDB(dctx, "record the abort", func(ctx context.Context) error {
		var err error
		end, err = w.Store.Apply(ctx, state.Finish(w.Cluster, state.ActorCLI, mid.State, state.UpgradeAborted, w.owner(),
			state.ReleaseLease(), state.Because(reason)))
		return err
	})
	if err != nil {
		// upgrade-aborting is recorded, its end is not: the state stays in flight until the lease
		// expires, whatever the cause (exit 6, not 1).
		return fmt.Errorf("%w: abort: %s is recorded, %s is not: %w", ErrNotRecorded, mid.State, state.UpgradeAborted, err)
	}
	w.stateChanged(state.WholeCluster, mid.State, end.State, reason)
	return nil
}
