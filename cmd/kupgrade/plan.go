package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

type upgradePlanCmd struct {
	Version     string      `arg:"" optional:"" help:"Target version (required when the cluster has no upgrade yet), v1.30.1 or 1.30.1."`
	FromVersion string      `name:"from-version" help:"Current version, as upgrade start takes it; the controllers are not read for it."`
	Recorded    bool        `help:"Use the versions recorded in the database instead of reading the hosts over SSH."`
	Force       bool        `name:"ignore-version-checks" help:"Plan as upgrade start --ignore-version-checks would start (a downgrade, a jump, controllers that disagree)."`
	Until       untilState  `predictor:"state" help:"Stop the plan once the upgrade would reach this state."`
	WorkerBatch int         `name:"worker-batch" aliases:"max-unavailable" help:"Upgrade (drain) the workers' kubelets this many at a time; controllers go one at a time." default:"1"`
	Health      healthFlags `embed:""`
}

func (c *upgradePlanCmd) Run(ctx context.Context, a *app) error {
	o := upgrade.PreviewOptions{
		Version: c.Version, FromVersion: c.FromVersion, Recorded: c.Recorded, Force: c.Force,
		Until: state.State(c.Until), WorkerBatch: c.WorkerBatch,
	}
	if c.Recorded {
		return a.plan(ctx, o, nil)
	}
	return a.plan(ctx, o, &c.Health)
}

// plan prints what `upgrade run` would do from here, writing nothing; a plan that meets a
// refusal fails with it (exit 3), after printing the steps up to it. With hf, and before the
// upgrade is started, it runs the health checks against the plan's versions first and prints
// their verdict and lines before the steps: a failed check is a refusal too, and leaves the plan
// without a next command. The overrides in force (given, or recorded for the upgrade) are listed.
func (a *app) plan(ctx context.Context, o upgrade.PreviewOptions, hf *healthFlags) error {
	if err := state.SpellVersions(&o.Version, &o.FromVersion); err != nil {
		return err
	}
	w, err := a.readWorkflow(ctx, o.Version != "")
	if err != nil {
		return err
	}
	p, err := w.Preview(ctx, o)
	if err != nil {
		return err
	}
	ph, err := a.planHealth(ctx, w, p, hf)
	if err != nil {
		return err
	}
	v := a.newPlanView(p)
	v.Health = ph
	if a.json() {
		if err := writeJSON(a.stdout, v); err != nil {
			return err
		}
	} else {
		writePlanHealth(a.stdout, ph, p.To)
		a.writePlan(p, v)
	}
	if p.Refusal != nil {
		return fmt.Errorf("the plan stops at a refusal: %w", p.Refusal)
	}
	return ph.refusal
}

// readWorkflow is workflow for a command that writes nothing: the store opened for reading
// only. With noDB, a missing SQLite database is no error (a plan before the first `upgrade
// start`): the workflow then has no store, and creates none.
func (a *app) readWorkflow(ctx context.Context, noDB bool) (*upgrade.Workflow, error) {
	inv, err := a.Inventory()
	if err != nil {
		return nil, err
	}
	w := &upgrade.Workflow{Runner: a.Runner(inv, 0), Inventory: inv, Cluster: a.cluster(),
		LeaseTTL: a.g.LeaseTTL, KubeadmTimeout: a.g.KubeadmTimeout, DrainTimeout: a.g.DrainTimeout, VerifyTimeout: a.g.VerifyTimeout, Log: a.log, Snapshots: a.snapshots()}
	st, err := a.Reader(ctx)
	var missing *missingDBError
	switch {
	case noDB && errors.As(err, &missing):
		a.log.Debug("no database yet: planning from scratch", "db", missing.path)
	case err != nil:
		return nil, err
	default:
		w.Store = st
	}
	return w, nil
}
