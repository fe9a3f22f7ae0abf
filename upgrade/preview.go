package upgrade

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
)

// Preview is what `kupgrade upgrade plan` shows: the versions found, every remaining step in
// order, and what would refuse. Building it writes nothing, to the store or to the hosts.
type Preview struct {
	Cluster  string
	Exists   bool        // an upgrade is recorded; false: the plan starts with `upgrade start`
	From, To string      // versions of the upgrade (From "" when it could not be decided)
	State    state.State // the recorded state ("" when none)
	// Hops are the versions the upgrade walks, To last (nil for one hop); Hop is the index of
	// the running one.
	Hops     []string
	Hop      int
	Versions []HostVersions
	Live     bool // Versions were read over SSH now, not taken from the store
	Steps    []PlannedStep
	// Refusal is the pre-check that would stop the walk at the last of Steps (or before the
	// first), nil when every step would start. It wraps state.ErrRefused (or ErrConflict, a live
	// lease), as the command itself would fail.
	Refusal error
	Next    string // the exact next command, "" when there is none
	// Wait says why nothing can be typed now (another kupgrade holds the lease), "" otherwise.
	Wait string
}

// HostVersions is what a host reports (or what the store last recorded of it).
type HostVersions struct {
	Host                  string
	Personality           state.Personality
	ControlPlane, Kubelet string
}

// PlannedStep is one step the walk would run: on which hosts, by which command and playbook,
// after which pre-checks.
type PlannedStep struct {
	Step     string
	Hop      string // the hop it belongs to ("hop 2 of 3 (v1.31.14)"), "" for a one-hop upgrade
	Hosts    []string
	Command  string // the command that runs this step alone
	Playbook string // the playbook's file ("" when the step runs nothing on the hosts)
	Tasks    []PlannedTask
	Checks   []Check
}

// PlannedTask is one task of a step's playbook on one host, as the plan shows it: its name and
// command rendered with that host's variables (never a template: a value known only at run time
// stands as <name>, and Note says so), a script cut to its first meaningful line.
type PlannedTask struct {
	Host, Name, Module string
	Command            string // "" for a task that runs no command (a module)
	Lines              int    // the script's number of lines when Command is its first; 0 for one line
	Note               string // "skipped: COND", "runs if COND (decided at run time)", "known at run time: ..."
}

// Check is one pre-check a step meets, and its verdict against the state the step would start
// from (the recorded state for the first step, the simulated one after it).
type Check struct {
	Name string
	Host string
	OK   bool
	Note string // the refusal, or what passing means (a redo, a kubelet skipped)
}

// PreviewOptions are the flags of `upgrade plan` (and `upgrade run --dry-run`).
type PreviewOptions struct {
	Version     string // the target when no upgrade is recorded (required then)
	FromVersion string // the current version, instead of reading the controllers
	Recorded    bool   // use the versions the store recorded instead of reading the hosts
	Force       bool   // as `upgrade start --ignore-version-checks`
	WorkerBatch int
	Until       state.State // stop the walk once the upgrade would reach this state
}

// runPlan is the Plan `upgrade run` follows on this inventory (with none, no optional step).
func (w *Workflow) runPlan(workerBatch int) Plan {
	if w.Inventory == nil {
		return Plan{WorkerBatch: workerBatch}
	}
	return Plan{
		PreAppUpdate:  w.userPlaybook(state.StepPreAppUpdate) != "",
		Storage:       w.userPlaybook(state.StepStorage) != "",
		PostAppUpdate: w.userPlaybook(state.StepPostAppUpdate) != "",
		WorkerBatch:   workerBatch,
	}
}

// Preview simulates `upgrade run` from the recorded state (or from `upgrade start o.Version`
// when no upgrade is recorded, or when w.Store is nil: no database yet) without writing anything. A refusal is not an error: it is in
// Preview.Refusal. The error is for what stops the plan itself: the store, SSH, bad input.
func (w *Workflow) Preview(ctx context.Context, o PreviewOptions) (*Preview, error) {
	if o.Until != "" && !o.Until.Valid() {
		return nil, state.UnknownState("--until", o.Until)
	}
	if w.Store == nil {
		return w.previewStart(ctx, o)
	}
	u, err := w.Store.Upgrade(ctx, w.Cluster)
	if errors.Is(err, state.ErrNotFound) {
		return w.previewStart(ctx, o)
	}
	if err != nil {
		return nil, err
	}
	p := &Preview{Cluster: w.Cluster, Exists: true, From: u.FromVersion, To: u.ToVersion, State: u.State, Hops: u.Hops, Hop: u.Hop}
	hosts, err := w.Store.Hosts(ctx, w.Cluster)
	if err != nil {
		return nil, err
	}
	lease, err := w.Store.Lease(ctx, w.Cluster)
	if err != nil {
		return nil, err
	}
	if o.Version != "" {
		if v, err := state.ParseVersion(o.Version); err != nil {
			return nil, err
		} else if v.String() != u.ToVersion {
			p.Refusal = fmt.Errorf("%w: cluster %q already has an upgrade to %s (state %s): finish or abort it, then `kupgrade upgrade delete`, before planning %s", state.ErrRefused, w.Cluster, u.ToVersion, u.State, v)
			return p, nil
		}
	}
	if hosts, err = w.previewVersions(ctx, p, hosts, o.Recorded); err != nil {
		return nil, err
	}
	plan := w.runPlan(o.WorkerBatch)
	if u.State == state.UpgradingKubelets {
		if plan.Uncordon, err = w.cordoned(ctx, u); err != nil {
			return nil, err
		}
	}
	p.Next, p.Wait = NextCommand(plan, u, hosts, lease, w.Store.Now())
	w.walk(p, plan, view{u: u, hosts: hosts, lease: lease, now: w.Store.Now()}, o.Until)
	if p.Refusal != nil && len(p.Steps) <= 1 && !recovery.IsRecover(p.Next) {
		p.Next = "" // the next step itself is refused: its refusal names the way out
	}
	return p, nil
}

// previewVersions fills p.Versions: read over SSH now unless recorded, and laid over the hosts
// the walk simulates (the kubelet step reads them again before deciding to skip a host).
func (w *Workflow) previewVersions(ctx context.Context, p *Preview, hosts []state.Host, recorded bool) ([]state.Host, error) {
	hosts = slices.Clone(hosts)
	if !recorded {
		vs, err := w.ReadVersions(ctx, w.Inventory.Nodes(), true)
		if err != nil {
			return nil, err
		}
		p.Live = true
		for i, h := range hosts {
			if v, ok := vs[h.Hostname]; ok {
				hosts[i].ControlPlaneVersion, hosts[i].KubeletVersion = v.ControlPlane, v.Kubelet
			}
		}
	}
	for _, h := range hosts {
		p.Versions = append(p.Versions, HostVersions{Host: h.Hostname, Personality: h.Personality,
			ControlPlane: h.ControlPlaneVersion, Kubelet: h.KubeletVersion})
	}
	return hosts, nil
}

// Next is NextCommand for the recorded upgrade of w.Cluster (Inventory may be nil: then no
// optional step is configured). It reads the store and nothing else.
func (w *Workflow) Next(ctx context.Context) (cmd, wait string, err error) {
	in, err := w.view(ctx)
	if err != nil {
		return "", "", err
	}
	u, hosts, lease := in.u, in.hosts, in.lease
	plan := w.runPlan(1)
	if u.State == state.UpgradingKubelets {
		if plan.Uncordon, err = w.cordoned(ctx, u); err != nil {
			return "", "", err
		}
	}
	cmd, wait = NextCommand(plan, u, hosts, lease, w.Store.Now())
	return cmd, wait, nil
}

// NextCommand is recovery.Next for u with the plan `upgrade run` follows: the step it would run
// next (a failed state: its retry), `kupgrade recover` for an operation in flight that nobody's
// live lease covers, `kupgrade upgrade delete` once the upgrade has ended. When another kupgrade
// holds a live lease, cmd is "" and wait says who.
func NextCommand(plan Plan, u state.Upgrade, hosts []state.Host, lease *state.Lease, now time.Time) (cmd, wait string) {
	in := recovery.NextIn{State: u.State, Lease: lease, Now: now, InFlight: u.State.InFlight()}
	for _, h := range hosts {
		in.InFlight = in.InFlight || h.Status.InFlight()
	}
	if !in.InFlight {
		in.Host, in.Done = planned(plan, u, hosts)
	}
	if !u.State.Failed() {
		in.Host = "" // upgrading-kubelets: only a failed kubelet's host is retried (by its caller)
	}
	return recovery.Next(in)
}

// planned is the host of the step plan runs next (for a failed state: the one its retry runs
// on), or done when nothing is left.
func planned(plan Plan, u state.Upgrade, hosts []state.Host) (host string, done bool) {
	act, done, err := plan.Next(u, hosts)
	switch {
	case err != nil || done:
		return "", err == nil
	case len(act.Hosts) > 0:
		return act.Hosts[0], false
	case len(controllers(hosts)) > 0:
		return controllers(hosts)[0].Hostname, false // cordon, uncordon: the one controller
	}
	return "", false
}
