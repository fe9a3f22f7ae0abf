package upgrade

import (
	"context"
	"fmt"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/state"
)

// hopHealth runs the health checks before the next hop of u starts, as `upgrade start` runs
// them before the first: from the hop just done to the next one's version, with the operator's
// overrides, those given now (o.Skip) and those recorded earlier in this upgrade (at its start:
// an override holds for the upgrade), recorded again as an event when they let the hop go on. A
// failed check refuses the hop, writing nothing: `upgrade run` ends there, and running it again
// runs the checks again.
func (w *Workflow) hopHealth(ctx context.Context, u state.Upgrade, o health.Options) error {
	next := u
	next.Hop++
	o, added, err := w.withRecordedSkips(ctx, u, o)
	if err != nil {
		return err
	}
	if len(added) > 0 {
		w.log().Info("health checks skipped as recorded earlier in this upgrade", "checks", added, "hop", next.HopLabel())
	}
	if o.From, err = state.ParseVersion(u.Target()); err != nil {
		return err
	}
	if o.To, err = state.ParseVersion(next.Target()); err != nil {
		return err
	}
	rs, err := w.Health(ctx, o)
	if err != nil {
		return fmt.Errorf("health checks before %s: %w", next.HopLabel(), err)
	}
	w.logHealth(rs)
	if err := HealthGate(rs); err != nil {
		return fmt.Errorf("%s is done, %s does not start: %w", u.HopLabel(), next.HopLabel(), err)
	}
	return w.RecordSkippedChecks(ctx, o.Skip)
}
