package upgrade

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// Action names a step of the step table and the hosts it runs on: what `upgrade run` does
// next, what a single-step command asks for, what the plan previews. Do runs it; the plan asks
// the same executor what it would check and record.
type Action struct {
	Step  string   // a state.Step* name
	Hosts []string // the hosts it runs on (control plane: one; kubelets: a batch; cordon: one)
	// Rerun runs a kubelet action on a host whose kubelet already reports the target (`host
	// upgrade HOST kubelet -f`), instead of marking it upgraded-kubelet.
	Rerun bool
}

func (a Action) String() string {
	if len(a.Hosts) == 0 {
		return a.Step
	}
	return fmt.Sprintf("%s %v", a.Step, a.Hosts)
}

// view is what an action's pre-checks look at: the upgrade, its hosts, the cluster's lease and
// the store's now. The run reads it from the store; the plan simulates it.
type view struct {
	u     state.Upgrade
	hosts []state.Host
	lease *state.Lease
	now   time.Time
}

// done is the view after step succeeded on the action's hosts: the step's done state, and set
// applied to a copy of each of those hosts with the running hop's target.
func (in view) done(step state.Step, act Action, set func(h *state.Host, target string)) view {
	in.u.State = step.Done
	in.hosts = slices.Clone(in.hosts)
	for i := range in.hosts {
		if h := &in.hosts[i]; slices.Contains(act.Hosts, h.Hostname) {
			set(h, in.u.Target())
		}
	}
	return in
}

// verdict is what an executor's pre-checks decided: each check in order, and what the step then
// does (the control-plane step that runs and whether it is a redo, the kubelets already at the
// target).
type verdict struct {
	checks  []Check
	running state.State
	redo    bool
	skip    map[string]bool
}

// add records one check; err is its refusal.
func (v *verdict) add(name, host string, err error, note string) error {
	c := Check{Name: name, Host: host, OK: err == nil, Note: note}
	if err != nil {
		c.Note = err.Error()
	}
	v.checks = append(v.checks, c)
	return err
}

// executor runs the steps of one scope. Its check is the one set of pre-checks both the run and
// the plan apply, and after is what the store records when the step succeeds.
// checked reads the store's view and runs e's pre-checks of act against it: what every
// executor's run does before it touches a host.
func (w *Workflow) checked(ctx context.Context, e executor, step state.Step, act Action) (view, verdict, error) {
	var v verdict
	in, err := w.view(ctx)
	if err != nil {
		return in, v, err
	}
	return in, v, e.check(step, act, in, &v)
}

type executor interface {
	// where returns the hosts act runs on, given the controllers in inventory order; an action
	// whose hosts do not fit the scope is bad input.
	where(step state.Step, act Action, controllers []string) ([]string, error)
	// check runs the pure pre-checks of act against in, recording each in v; the error is the
	// first refusal.
	check(step state.Step, act Action, in view, v *verdict) error
	// run reads the store, checks, and runs act on the hosts.
	run(ctx context.Context, w *Workflow, step state.Step, act Action) error
	// after returns in as the store records it once act succeeded.
	after(step state.Step, act Action, in view) view
}

// executors is the one executor of each scope.
var executors = map[state.Scope]executor{
	state.ScopeControllers:  clusterExec{},
	state.ScopeOneHost:      clusterExec{},
	state.ScopeControlPlane: controlPlaneExec{},
	state.ScopeKubeletBatch: kubeletExec{},
	state.ScopeStoreOnly:    storeExec{},
	state.ScopeVerify:       completeExec{},
}

// resolve finds act's step and executor and fills in where it runs.
func resolve(act Action, controllers []string) (state.Step, executor, Action, error) {
	step, ok := state.StepNamed(act.Step)
	if !ok {
		return step, nil, act, fmt.Errorf("unknown step %q: %w", act.Step, state.ErrBadInput)
	}
	ex := executors[step.Scope]
	hosts, err := ex.where(step, act, controllers)
	if err != nil {
		return step, nil, act, err
	}
	act.Hosts = hosts
	return step, ex, act, nil
}

// Do runs act: its scope's executor reads the store, runs the pre-checks the plan shows for it,
// then the step's playbook under the lease and the host fence (see the package comment).
// Abort decides first whether anything needs restoring (Abort).
func (w *Workflow) Do(ctx context.Context, act Action) error {
	if act.Step == state.StepAbort {
		return w.Abort(ctx)
	}
	var names []string
	if w.Inventory != nil {
		for _, h := range w.Inventory.Controllers() {
			names = append(names, h.Name)
		}
	}
	step, ex, act, err := resolve(act, names)
	if err != nil {
		return err
	}
	return ex.run(ctx, w, step, act)
}

// noHosts refuses hosts named for a step that decides its own.
func noHosts(step state.Step, act Action) error {
	if len(act.Hosts) > 0 {
		return fmt.Errorf("step %s takes no host (it runs as %s), not %v: %w", step.Name, step.Command, act.Hosts, state.ErrBadInput)
	}
	return nil
}
