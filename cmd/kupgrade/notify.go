package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/notify"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// notifyDrain is how long kupgrade waits at exit for the webhook to take what is queued: a dead
// or hanging webhook delays the exit by no more than this and never changes the exit status.
const notifyDrain = 3 * time.Second

// openNotifier starts the webhook of --notify-url (KUPGRADE_NOTIFY_URL), if any.
func (a *app) openNotifier() error {
	n, err := notify.New(a.g.NotifyURL, notify.Options{})
	if err != nil {
		return fmt.Errorf("%w: %v (or unset KUPGRADE_NOTIFY_URL)", state.ErrBadInput, err)
	}
	a.notifier = n
	return nil
}

// closeNotifier drains the webhook's queue for at most notifyDrain; what was lost is a warning.
func (a *app) closeNotifier() {
	if err := a.notifier.Close(notifyDrain); err != nil {
		a.log.Warn("webhook notifications lost", "err", err)
	}
}

// notifyNext fills e.Next with the one next command of the recorded upgrade (upgrade.NextCommand
// through Workflow.Next), keeping e.Next when nothing more precise is known.
func (a *app) notifyNext(ctx context.Context, w *upgrade.Workflow, e *notify.Event) {
	if a.notifier == nil || w == nil || w.Store == nil {
		return
	}
	if next, wait, err := w.Next(ctx); err == nil {
		switch {
		case next != "":
			e.Next = a.command(next)
		case wait != "":
			e.Next = "nothing to type now: " + wait
		}
	}
}

// notifyFailure posts a `failed` event when err is a step's failure, and returns err.
func (a *app) notifyFailure(ctx context.Context, w *upgrade.Workflow, err error) error {
	var se *upgrade.StepError
	if a.notifier == nil || !errors.As(err, &se) {
		return err
	}
	e := notify.Event{Kind: notify.Failed, Cluster: w.Cluster, State: string(se.State), Next: a.command(se.Retry),
		Message: a.redact(se.Error())}
	if se.Host != state.WholeCluster {
		e.Host = se.Host
	}
	e.Finding = findingOf(err)
	a.notifyNext(ctx, w, &e)
	a.notifier.Send(e)
	return err
}

// notifyCompleted posts a `completed` event when u is complete and was not before.
func (a *app) notifyCompleted(ctx context.Context, w *upgrade.Workflow, before state.State, u state.Upgrade) {
	if a.notifier == nil || u.State != state.UpgradeComplete || before == state.UpgradeComplete {
		return
	}
	e := notify.Event{Kind: notify.Completed, Cluster: u.Cluster, State: string(u.State),
		Message: fmt.Sprintf("the upgrade of cluster %s from %s to %s is complete", u.Cluster, u.FromVersion, u.ToVersion)}
	a.notifyNext(ctx, w, &e)
	a.notifier.Send(e)
}

// notifyFleet posts each cluster a fleet run failed or completed.
func (a *app) notifyFleet(ctx context.Context, st upgrade.Store, res fleet.Result) {
	if a.notifier == nil {
		return
	}
	w := &upgrade.Workflow{Store: st, Cluster: res.Cluster}
	if res.Outcome == state.FleetFailed {
		if errors.As(res.Err, new(*upgrade.StepError)) {
			_ = a.notifyFailure(ctx, w, res.Err)
		} else {
			a.notifyFleetError(ctx, w, res)
		}
		return
	}
	if res.Outcome == state.FleetDone {
		if u, err := st.Upgrade(ctx, res.Cluster); err == nil {
			a.notifyCompleted(ctx, w, "", u)
		}
	}
}

// notifyFleetError posts a fleet cluster that failed without a step's failure (its inventory,
// its hosts' checks...).
func (a *app) notifyFleetError(ctx context.Context, w *upgrade.Workflow, res fleet.Result) {
	e := notify.Event{Kind: notify.Failed, Cluster: res.Cluster, State: string(res.State), Message: "fleet run failed the cluster"}
	if res.Err != nil {
		e.Message = a.redact(res.Err.Error())
	}
	a.notifyNext(ctx, w, &e)
	a.notifier.Send(e)
}
