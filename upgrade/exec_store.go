package upgrade

import (
	"context"
	"fmt"

	"github.com/kupgrade/kupgrade/state"
)

// storeExec runs the step that runs nothing on the hosts (state.ScopeStoreOnly): next-hop, which
// moves an upgrade with hops to its next one, in one compare-and-set in the store.
type storeExec struct{}

func (storeExec) where(step state.Step, act Action, _ []string) ([]string, error) {
	return nil, noHosts(step, act)
}

func (storeExec) check(_ state.Step, _ Action, in view, v *verdict) error {
	if err := v.add("lease free", "", state.CheckLease(in.u, in.lease, in.now), ""); err != nil {
		return err
	}
	next := in.u
	next.Hop++
	return v.add(fmt.Sprintf("%s done", in.u.HopLabel()), "", state.CheckNextHop(in.u, in.hosts), "next: "+next.HopLabel())
}

// run writes next-hop once its checks pass; every host status is cleared.
func (e storeExec) run(ctx context.Context, w *Workflow, step state.Step, act Action) error {
	in, _, err := w.checked(ctx, e, step, act)
	if err != nil {
		return err
	}
	next := e.after(step, act, in).u
	msg := fmt.Sprintf("%s done; %s starts", in.u.HopLabel(), next.HopLabel())
	c := state.NextHop(w.Cluster, state.ActorRunner, in.u.State, in.u.Hop, state.Because(msg))
	after, err := w.Store.Apply(ctx, c)
	if err == nil {
		w.stateChanged(state.WholeCluster, in.u.State, after.State, msg)
	}
	return err
}

func (storeExec) after(step state.Step, _ Action, in view) view {
	in.u.State = step.Done
	if step.Name == state.StepNextHop {
		in.u.Hop++
	}
	hosts := make([]state.Host, len(in.hosts))
	for i, h := range in.hosts {
		h.Status = state.HostIdle
		hosts[i] = h
	}
	in.hosts = hosts
	return in
}
