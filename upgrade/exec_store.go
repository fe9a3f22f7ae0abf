package upgrade

import (
	"context"

	"github.com/kupgrade/kupgrade/state"
)

// storeExec runs the steps that run nothing on the hosts (state.ScopeStoreOnly: complete): one
// compare-and-set in the store.
type storeExec struct{}

func (storeExec) where(step state.Step, act Action, _ []string) ([]string, error) {
	return nil, noHosts(step, act)
}

func (storeExec) check(_ state.Step, _ Action, in view, v *verdict) error {
	if err := v.add("lease free", "", state.CheckLease(in.u, in.lease, in.now), ""); err != nil {
		return err
	}
	return v.add("every kubelet upgraded", "", state.CheckComplete(in.u, in.hosts), "")
}

// run marks the upgrade complete once every host is upgraded-kubelet, and clears every host
// status.
func (e storeExec) run(ctx context.Context, w *Workflow, step state.Step, act Action) error {
	in, err := w.view(ctx)
	if err != nil {
		return err
	}
	if err := e.check(step, act, in, &verdict{}); err != nil {
		return err
	}
	after, err := w.Store.Apply(ctx, state.Complete(w.Cluster, state.ActorCLI, in.u.State, state.Because("every kubelet is upgraded")))
	if err == nil {
		w.stateChanged(state.WholeCluster, in.u.State, after.State, "upgrade complete")
	}
	return err
}

func (storeExec) after(step state.Step, _ Action, in view) view {
	in.u.State = step.Done
	hosts := make([]state.Host, len(in.hosts))
	for i, h := range in.hosts {
		h.Status = state.HostIdle
		hosts[i] = h
	}
	in.hosts = hosts
	return in
}
