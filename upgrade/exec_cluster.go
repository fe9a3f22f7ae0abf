package upgrade

import (
	"context"
	"fmt"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/state"
)

// clusterExec runs the steps with no host status of their own: on every controller
// (state.ScopeControllers: download-images, the app and networking hooks, storage, abort's
// restore) or on the one controller of a one-controller system (state.ScopeOneHost: cordon,
// uncordon). Only the cluster state moves.
type clusterExec struct{}

func (clusterExec) where(step state.Step, act Action, controllers []string) ([]string, error) {
	if step.Scope == state.ScopeControllers {
		return nil, noHosts(step, act)
	}
	switch {
	case len(act.Hosts) > 1:
		return nil, fmt.Errorf("step %s runs on one host, not %v: %w", step.Name, act.Hosts, state.ErrBadInput)
	case len(act.Hosts) == 0 && len(controllers) > 0: // one-controller systems: that controller
		return controllers[:1], nil
	}
	return act.Hosts, nil
}

func (clusterExec) check(step state.Step, _ Action, in view, v *verdict) error {
	if err := v.add("lease free", "", state.CheckLease(in.u, in.lease, in.now), ""); err != nil {
		return err
	}
	return v.add(fmt.Sprintf("state %s allows %s", in.u.State, step.Name), "", state.CheckStep(in.u, step), "")
}

// run: the lease and state pre-checks, then the step's playbook.
func (e clusterExec) run(ctx context.Context, w *Workflow, step state.Step, act Action) error {
	hosts, err := e.inventoryHosts(w, step, act)
	if err != nil {
		return err
	}
	in, _, err := w.checked(ctx, e, step, act)
	if err != nil {
		return err
	}
	pb, err := w.playbook(step)
	if err != nil {
		return err
	}
	return (&op{w: w, step: step, from: in.u.State, hop: in.u.Hop, hosts: hosts, clusterOnly: true, pb: pb, vars: w.vars(in.u, nil)}).execute(ctx)
}

// inventoryHosts are the hosts the playbook is limited to: every controller, or the one named.
func (clusterExec) inventoryHosts(w *Workflow, step state.Step, act Action) ([]*inventory.Host, error) {
	if step.Scope == state.ScopeOneHost && len(act.Hosts) > 0 {
		h, err := w.host(act.Hosts[0])
		if err != nil {
			return nil, err
		}
		return []*inventory.Host{h}, nil
	}
	return w.controllerHosts() // one host named by nobody: there is no controller to default to
}

func (clusterExec) after(step state.Step, _ Action, in view) view {
	in.u.State = step.Done
	return in
}
