package upgrade

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/state"
)

// previewStart plans an upgrade that is not recorded yet: the checks of `upgrade start o.Version`,
// then the walk from upgrade-started over the inventory's hosts.
func (w *Workflow) previewStart(ctx context.Context, o PreviewOptions) (*Preview, error) {
	if o.Version == "" {
		return nil, fmt.Errorf("cluster %q has no upgrade: give the version to plan one, `kupgrade upgrade plan VERSION`: %w", w.Cluster, state.ErrBadInput)
	}
	toV, err := state.ParseVersion(o.Version)
	if err != nil {
		return nil, err
	}
	if _, err := w.controllerHosts(); err != nil {
		return nil, err
	}
	p := &Preview{Cluster: w.Cluster, To: toV.String()}
	start := PlannedStep{Step: "start", Command: "kupgrade upgrade start " + p.To}
	var vs map[string]Versions
	if o.FromVersion == "" {
		if vs, err = w.ReadVersions(ctx, w.Inventory.Nodes(), true); err != nil {
			return nil, err
		}
		p.Live = true
	} else {
		start.Command += " --from-version " + o.FromVersion
	}
	if o.Force {
		start.Command += " --ignore-version-checks"
	}
	var hosts []state.Host
	for _, h := range w.Inventory.Nodes() {
		v := vs[h.Name]
		hosts = append(hosts, state.Host{Hostname: h.Name, Personality: personality(h), ControlPlaneVersion: v.ControlPlane, KubeletVersion: v.Kubelet})
		p.Versions = append(p.Versions, HostVersions{Host: h.Name, Personality: personality(h), ControlPlane: v.ControlPlane, Kubelet: v.Kubelet})
	}
	p.Steps = []PlannedStep{start}
	if err := startChecks(p, o, w.Inventory, vs, toV); err != nil {
		return p, nil // the refusal is in p
	}
	p.Next = start.Command
	u := state.Upgrade{Cluster: w.Cluster, FromVersion: p.From, ToVersion: p.To, Hops: p.Hops, State: state.UpgradeStarted}
	now := time.Now() // no database yet: no lease to compare it with
	if w.Store != nil {
		now = w.Store.Now()
	}
	w.walk(p, w.runPlan(o.WorkerBatch), view{u: u, hosts: hosts, now: now}, o.Until)
	return p, nil
}

// startChecks runs the checks of `upgrade start` on p's first step and decides p.From; the
// error is the refusal, recorded in p.
func startChecks(p *Preview, o PreviewOptions, inv *inventory.Inventory, vs map[string]Versions, toV state.Version) error {
	check := func(name string, err error) error {
		c := Check{Name: name, OK: err == nil}
		if err != nil {
			c.Note, p.Refusal = err.Error(), err
		}
		p.Steps[0].Checks = append(p.Steps[0].Checks, c)
		return err
	}
	from := o.FromVersion
	if from == "" {
		var err error
		if from, err = agreedVersion(inv.Controllers(), vs, o.Force); check("controllers agree on the current version", err) != nil {
			return err
		}
	}
	fromV, err := state.ParseVersion(from)
	if err != nil {
		return check("current version", err)
	}
	p.From = fromV.String()
	p.Hops, err = Hops(inv, fromV, toV, o.Force)
	name := fmt.Sprintf("%s -> %s is a supported step", p.From, p.To)
	if len(p.Hops) > 1 {
		name = fmt.Sprintf("%s -> %s in %d hops (%s), each a supported step", p.From, p.To, len(p.Hops), strings.Join(p.Hops, ", "))
	}
	return check(name, err)
}

// walk simulates `upgrade run` from in: each step's pre-checks (its executor's) against the
// state it would meet, then its outcome as if it succeeded (its executor's after), until done,
// until, or the first refusal. in.lease is the recorded one, which only the first step meets:
// the run holds its own afterwards.
func (w *Workflow) walk(p *Preview, plan Plan, in view, until state.State) {
	for range maxActions {
		if until != "" && in.u.State == until {
			return
		}
		act, done, err := plan.Next(in.u, in.hosts)
		if err != nil {
			p.Refusal = err
			if lerr := state.CheckLease(in.u, in.lease, in.now); lerr != nil && in.u.State.InFlight() {
				p.Refusal = lerr // another kupgrade runs it: a conflict (exit 4), as `upgrade run` says
			}
			return
		}
		if done {
			return
		}
		ps, next, err := w.plannedStep(act, in)
		p.Steps = append(p.Steps, ps)
		if err != nil {
			p.Refusal = err
			return
		}
		in = next
		in.lease = nil
	}
}

// plannedStep describes act, runs the pure pre-checks its executor runs before it writes
// anything, and returns in as the store would record act's success; the error is the first
// refusal.
func (w *Workflow) plannedStep(act Action, in view) (PlannedStep, view, error) {
	var names []string
	for _, h := range controllers(in.hosts) {
		names = append(names, h.Hostname)
	}
	step, ex, act, err := resolve(act, names)
	ps := PlannedStep{Step: act.Step, Hosts: act.Hosts, Hop: in.u.HopLabel()}
	if err != nil {
		return ps, in, err
	}
	ps.Command = step.CommandFor("")
	if len(ps.Hosts) > 0 {
		cmds := make([]string, len(ps.Hosts))
		for i, h := range ps.Hosts {
			cmds[i] = step.CommandFor(h)
		}
		ps.Command = strings.Join(cmds, "; ")
	}
	if step.Playbook != "" {
		pb, err := w.playbook(step)
		if err != nil {
			return ps, in, err
		}
		ps.Playbook, ps.Tasks = pb.File, w.plannedTasks(pb, on(ps.Hosts, names), w.stepVars(step, in))
		if t, ok := w.snapshotTask(step, in.u); ok {
			ps.Tasks = append([]PlannedTask{t}, ps.Tasks...)
		}
	}
	var v verdict
	err = ex.check(step, act, in, &v)
	ps.Checks = v.checks
	return ps, ex.after(step, act, in), err
}

// on is the hosts a step runs on: its own, or every controller.
func on(hosts, controllers []string) []string {
	if len(hosts) > 0 {
		return hosts
	}
	return controllers
}

// stepVars is the variables the step's executor passes its playbook on a host, as the run
// passes them; the control-plane step's snapshot, taken over SSH before kubeadm, stands as an
// empty one (its playbook only asks whether it is there).
func (w *Workflow) stepVars(step state.Step, in view) func(string) map[string]any {
	return func(host string) map[string]any {
		if step.Scope != state.ScopeControlPlane {
			return w.vars(in.u, nil)
		}
		v := backupVars(in.hosts, host, map[string]any{playbooks.VarFirstController: step.Running == state.UpgradingFirstMaster,
			playbooks.VarRedo: false, playbooks.VarKcfgBefore: map[string]any{}})
		return w.vars(in.u, v)
	}
}
