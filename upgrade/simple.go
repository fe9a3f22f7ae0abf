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

// abortUntouched aborts an upgrade that changed nothing on the hosts: no remote work, two
// transitions (upgrade-aborting, then upgrade-aborted), each compare-and-set.
func (w *Workflow) abortUntouched(ctx context.Context, u state.Upgrade) error {
	reason := "abort: every controller is as this upgrade found it (verified on each), nothing to restore"
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
