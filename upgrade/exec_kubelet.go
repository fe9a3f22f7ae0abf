package upgrade

import (
	"context"
	"fmt"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// kubeletExec upgrades the kubelets of a batch of hosts (state.ScopeKubeletBatch; controllers
// before workers). A host whose kubelet already reports the target is marked upgraded-kubelet
// without running anything, unless the action says Rerun.
type kubeletExec struct{}

func (kubeletExec) where(step state.Step, act Action, _ []string) ([]string, error) {
	if len(act.Hosts) == 0 {
		return nil, fmt.Errorf("step %s needs the hosts whose kubelets it upgrades: %w", step.Name, state.ErrBadInput)
	}
	return act.Hosts, nil
}

func (kubeletExec) check(_ state.Step, act Action, in view, v *verdict) error {
	v.skip = map[string]bool{}
	for _, h := range act.Hosts {
		skip, err := state.CheckKubelet(in.u, in.hosts, h, in.lease, in.now)
		note := ""
		if skip && !act.Rerun {
			note = fmt.Sprintf("the kubelet is at %s already: marked upgraded-kubelet with nothing run once the API server reports the node settled (running %s, Ready, not cordoned by kupgrade), else run", in.u.Target(), in.u.Target())
			v.skip[h] = true
		}
		if err := v.add("kubelet pre-check (state, lease, controllers first)", h, err, note); err != nil {
			return err
		}
	}
	return nil
}

func (e kubeletExec) run(ctx context.Context, w *Workflow, step state.Step, act Action) error {
	hs, err := w.hosts(act.Hosts)
	if err != nil {
		return err
	}
	if u, err := w.Store.Upgrade(ctx, w.Cluster); err != nil {
		return err
	} else if err := w.leaseFree(ctx, u); err != nil {
		return err // another kupgrade's live lease: a conflict before any host is read
	}
	// Read what the kubelets report now: the skip decision must not trust a stale record.
	if err := w.refresh(ctx, hs, false); err != nil {
		return w.failBefore(ctx, step, err) // each host's failure, recorded
	}
	in, v, err := w.checked(ctx, e, step, act)
	if err != nil {
		return err
	}
	w.confirmSkips(ctx, hs, in.u.Target(), v.skip)
	run, err := e.skip(ctx, w, in, hs, v.skip)
	if err != nil || len(run) == 0 {
		return err
	}
	pb, err := w.playbook(step)
	if err != nil {
		return err
	}
	return (&op{w: w,
		step: step, from: in.u.State, hop: in.u.Hop, hosts: run,
		hostFrom: statuses(in.hosts), hostTo: state.UpgradingKubelet, hostDone: state.UpgradedKubelet, phased: true,
		target: in.u.Target(), pb: pb, kubeadm: true, vars: w.vars(in.u, nil),
		verify: func(ctx context.Context, h *inventory.Host, reg map[string]any) error {
			return e.verify(ctx, w, h, in.u.Target(), reg)
		},
	}).execute(ctx)
}

// skip marks the hosts of skip upgraded-kubelet and returns the others of hs. Each mark compares
// the host's status and the lease generation of in, read before the API server was asked: a
// kubelet step started meanwhile (an operator's -f) may have cordoned the node and failed back
// to the status read, and the mark must not record such a node upgraded.
func (kubeletExec) skip(ctx context.Context, w *Workflow, in view, hs []*inventory.Host, skip map[string]bool) ([]*inventory.Host, error) {
	var run []*inventory.Host
	u := in.u
	for _, h := range hs {
		if !skip[h.Name] {
			run = append(run, h)
			continue
		}
		after, err := w.Store.Apply(ctx, state.MarkKubelet(w.Cluster, state.ActorRunner, u.State, h.Name, statuses(in.hosts)[h.Name], u.Target(), u.Hop, state.AtGeneration(in.u.Generation),
			state.Because(fmt.Sprintf("kubelet on %s already reports %s: nothing to run", h.Name, u.Target()))))
		if err != nil {
			return nil, err
		}
		w.stateChanged(h.Name, u.State, after.State, fmt.Sprintf("%s: kubelet already at %s", h.Name, u.Target()))
		u = after
	}
	return run, nil
}

// confirmSkips keeps in skip only the hosts whose node the API server reports settled at target
// (its running kubelet at target, Ready, kupgrade's cordon lifted): a kubelet binary at target is
// not enough, a run killed between the install and the restart, or before the uncordon, leaves
// one. When the API server cannot be asked, nothing is skipped: the step is safe to run again.
func (w *Workflow) confirmSkips(ctx context.Context, hs []*inventory.Host, target string, skip map[string]bool) {
	if len(skip) == 0 {
		return
	}
	nodes, err := w.nodes(ctx)
	for _, h := range hs {
		if !skip[h.Name] {
			continue
		}
		why := fmt.Sprint(err)
		if n, ok := nodes[h.NodeName()]; err == nil && !ok {
			why = "the API server lists no node " + h.NodeName()
		} else if err == nil {
			ok, why = n.Settled(target)
			if ok {
				continue
			}
		}
		delete(skip, h.Name)
		w.log().Info("kubelet: the binary reports the target but the step runs again", "host", h.Name, "target", target, "why", why)
	}
}

// nodes asks the API server, from the first controller, what it reports of every node.
func (w *Workflow) nodes(ctx context.Context) (map[string]health.Node, error) {
	cs, err := w.controllerHosts()
	if err != nil {
		return nil, err
	}
	out, err := w.execScript(ctx, cs[0], "Ask the API server what every node reports", health.NodesScript)
	if err != nil {
		return nil, fmt.Errorf("kubectl get nodes on %s: %w", cs[0].Name, err)
	}
	return health.Nodes(out)
}

// verify checks that h's kubelet reports target: from the playbook's registered
// kubelet_version when there is one, else over SSH.
func (kubeletExec) verify(ctx context.Context, w *Workflow, h *inventory.Host, target string, reg map[string]any) error {
	var v Versions
	if kv, ok := kubeadm.KubeletVersion(runner.ResultOf(reg[playbooks.VarKubeletVersion]).Stdout); ok {
		v.Kubelet = kv
	} else {
		var err error
		if v, err = w.readHost(ctx, h, false); err != nil {
			return fmt.Errorf("verify %s: %w", h.Name, err)
		}
	}
	if v.Kubelet != target {
		return fmt.Errorf("verify %s: `kubelet --version` reports %s, want %s", h.Name, v.Kubelet, target)
	}
	return w.Store.SetVersions(ctx, w.Cluster, h.Name, v.ControlPlane, v.Kubelet, w.Store.Now())
}

func (kubeletExec) after(step state.Step, act Action, in view) view {
	return in.done(step, act, func(h *state.Host, target string) {
		h.TargetVersion, h.KubeletVersion, h.Status = target, target, state.UpgradedKubelet
	})
}
