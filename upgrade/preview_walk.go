package upgrade

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/inventory"
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
	cs, err := w.controllerHosts()
	if err != nil {
		return nil, err
	}
	p := &Preview{Cluster: w.Cluster, To: toV.String()}
	start := PlannedStep{Step: "start", Command: "kupgrade upgrade start " + p.To}
	var vs map[string]Versions
	if o.FromVersion == "" {
		if vs, err = w.ReadVersions(ctx, w.Inventory.Hosts, true); err != nil {
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
	for _, h := range w.Inventory.Hosts {
		v := vs[h.Name]
		hosts = append(hosts, state.Host{Hostname: h.Name, Personality: personality(h), ControlPlaneVersion: v.ControlPlane, KubeletVersion: v.Kubelet})
		p.Versions = append(p.Versions, HostVersions{Host: h.Name, Personality: personality(h), ControlPlane: v.ControlPlane, Kubelet: v.Kubelet})
	}
	p.Steps = []PlannedStep{start}
	if err := startChecks(p, o, cs, vs, toV); err != nil {
		return p, nil // the refusal is in p
	}
	p.Next = start.Command
	u := state.Upgrade{Cluster: w.Cluster, FromVersion: p.From, ToVersion: p.To, State: state.UpgradeStarted}
	w.walk(p, w.runPlan(o.WorkerBatch), u, hosts, nil, o.Until)
	return p, nil
}

// startChecks runs the checks of `upgrade start` on p's first step and decides p.From; the
// error is the refusal, recorded in p.
func startChecks(p *Preview, o PreviewOptions, cs []*inventory.Host, vs map[string]Versions, toV state.Version) error {
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
		if from, err = agreedVersion(cs, vs, o.Force); check("controllers agree on the current version", err) != nil {
			return err
		}
	}
	fromV, err := state.ParseVersion(from)
	if err != nil {
		return check("current version", err)
	}
	p.From = fromV.String()
	return check(fmt.Sprintf("%s -> %s is a supported step", p.From, p.To), state.CheckVersionStep(fromV, toV, o.Force))
}

// walk simulates `upgrade run` from u: each step's pre-checks against the state it would meet,
// then its outcome as if it succeeded, until done, until, or the first refusal. lease is the
// recorded one, which only the first step meets: the run holds its own afterwards.
func (w *Workflow) walk(p *Preview, plan Plan, u state.Upgrade, hosts []state.Host, lease *state.Lease, until state.State) {
	now := time.Now()
	if w.Store != nil {
		now = w.Store.Now()
	}
	for range maxActions {
		if until != "" && u.State == until {
			return
		}
		act, done, err := plan.Next(u, hosts)
		if err != nil {
			p.Refusal = err
			if lerr := state.CheckLease(u, lease, now); lerr != nil && u.State.InFlight() {
				p.Refusal = lerr // another kupgrade runs it: a conflict (exit 4), as `upgrade run` says
			}
			return
		}
		if done {
			return
		}
		ps, err := w.plannedStep(act, u, hosts, lease, now)
		p.Steps = append(p.Steps, ps)
		if err != nil {
			p.Refusal = err
			return
		}
		u, hosts = simulate(act, u, hosts)
		lease = nil
	}
}

// plannedStep describes act and runs the pure pre-checks its command would run; the error is the
// first refusal.
func (w *Workflow) plannedStep(act Action, u state.Upgrade, hosts []state.Host, lease *state.Lease, now time.Time) (PlannedStep, error) {
	step, _ := state.StepNamed(act.Step)
	ps := PlannedStep{Step: act.Step, Hosts: act.Hosts}
	if len(ps.Hosts) == 0 && step.Scope == state.ScopeOneHost {
		if cs := controllers(hosts); len(cs) > 0 {
			ps.Hosts = []string{cs[0].Hostname}
		}
	}
	ps.Command = step.CommandFor("")
	if len(ps.Hosts) > 0 {
		cmds := make([]string, len(ps.Hosts))
		for i, h := range ps.Hosts {
			cmds[i] = step.CommandFor(h)
		}
		ps.Command = strings.Join(cmds, "; ")
	}
	if step.Scope != state.ScopeStoreOnly {
		pb, err := w.playbook(step)
		if err != nil {
			return ps, err
		}
		ps.Playbook, ps.Tasks = pb.File, tasksOf(pb)
	}
	return ps, ps.check(step, u, hosts, lease, now)
}
