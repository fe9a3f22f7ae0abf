package upgrade

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// RunOptions are the flags of `upgrade run`.
type RunOptions struct {
	Until       state.State // stop once the state is this one ("" for the end)
	Retries     int         // retries of a failed step before giving up
	WorkerBatch int         // workers' kubelets this many at a time (default 1)
	// Gate, when set, is asked before each step; an error stops the run before the step starts
	// (a fleet runner that lost its claim on the cluster starts nothing more there).
	Gate func(ctx context.Context) error
	// HopHealth, when set, are the health checks run before each next hop of an upgrade with
	// hops (their versions are the hops'); a failed one ends the run before the hop starts.
	HopHealth *health.Options
}

// maxActions bounds `upgrade run` against a plan that makes no progress (a bug, never a cluster).
const maxActions = 1000

// Run walks every remaining step in order, resuming from the current state (a failed state
// resumes at its own step), and stops at the first failure it may not retry.
func (w *Workflow) Run(ctx context.Context, opts RunOptions) error {
	if opts.Until != "" && !opts.Until.Valid() {
		return state.UnknownState("--until", opts.Until)
	}
	plan := w.runPlan(opts.WorkerBatch)
	tries := map[string]int{}
	steps, total := 0, w.stepsLeft(ctx, opts)
	for range maxActions {
		u, err := w.Store.Upgrade(ctx, w.Cluster)
		if err != nil {
			return err
		}
		if opts.Until != "" && u.State == opts.Until {
			return nil
		}
		hosts, err := w.Store.Hosts(ctx, w.Cluster)
		if err != nil {
			return err
		}
		if u.State == state.UpgradingKubelets && !plan.Uncordon { // history: once true, stays true
			if plan.Uncordon, err = w.cordoned(ctx, u); err != nil {
				return err
			}
		}
		if u.State.InFlight() { // another kupgrade's live lease: a conflict (exit 4), as for every step
			if err := w.leaseFree(ctx, u); err != nil {
				return err
			}
		}
		act, done, err := plan.Next(u, hosts)
		if err != nil || done {
			return err
		}
		if opts.Gate != nil {
			if err := opts.Gate(ctx); err != nil {
				return fmt.Errorf("before %s: %w", act, err)
			}
		}
		if act.Step == state.StepNextHop && opts.HopHealth != nil {
			if err := w.hopHealth(ctx, u, *opts.HopHealth); err != nil {
				return err
			}
		}
		w.log().Info("next step", "step", act.String(), "state", u.State)
		steps++
		w.report(runner.Event{Event: runner.EventStepStart, Msg: stepLabel(act, steps, max(total, steps))})
		err = w.Do(ctx, act)
		if err == nil {
			continue
		}
		var se *StepError
		if !errors.As(err, &se) || !se.Recorded || ctx.Err() != nil || tries[act.String()] >= opts.Retries {
			return err
		}
		tries[act.String()]++
		w.log().Warn("step failed, retrying", "step", act.String(), "attempt", tries[act.String()], "of", opts.Retries, "error", err)
	}
	return fmt.Errorf("upgrade run made no progress after %d steps", maxActions)
}

// cordoned reports whether this upgrade cordoned its controller: it entered cordon-complete,
// however many events followed.
func (w *Workflow) cordoned(ctx context.Context, u state.Upgrade) (bool, error) {
	return w.Store.Entered(ctx, w.Cluster, u.UUID, state.CordonComplete)
}

// stepsLeft is how many steps `upgrade run` has left to run, as its plan counts them (0 when it
// cannot be read: the count then grows with the steps run).
func (w *Workflow) stepsLeft(ctx context.Context, opts RunOptions) int {
	p, err := w.Preview(ctx, PreviewOptions{Recorded: true, Until: opts.Until, WorkerBatch: opts.WorkerBatch})
	if err != nil {
		return 0
	}
	return len(p.Steps)
}

// stepLabel is "step 5/9 second-master controller-1", the live line's and the log's name of a
// step of this run.
func stepLabel(act Action, n, total int) string {
	return strings.TrimSpace(fmt.Sprintf("step %d/%d %s %s", n, total, act.Step, strings.Join(act.Hosts, ",")))
}
