package upgrade

import (
	"context"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/state"
)

// skippedReason starts the event that records the health checks an operator skipped by name.
const skippedReason = "health checks skipped by --skip-check: "

// RecordSkippedChecks records, on the cluster's upgrade, the health checks the operator
// overrode by name: they hold for the rest of the upgrade (RecordedSkips).
func (w *Workflow) RecordSkippedChecks(ctx context.Context, skip []string) error {
	if len(skip) == 0 {
		return nil
	}
	return w.Store.AddEvent(ctx, state.Event{Cluster: w.Cluster, Hostname: state.WholeCluster, Actor: state.ActorCLI,
		Reason: skippedReason + strings.Join(skip, ", ")})
}

// RecordedSkips are the health checks skipped by name for upgrade u (at its start or before
// one of its hops), read from its events, in the order the checks run: an override given once
// holds for every later hop of the same upgrade.
func (w *Workflow) RecordedSkips(ctx context.Context, u state.Upgrade) ([]string, error) {
	evs, err := w.Store.Events(ctx, u.Cluster, 0)
	if err != nil {
		return nil, err
	}
	var given []string
	for _, e := range evs {
		if rest, ok := strings.CutPrefix(e.Reason, skippedReason); ok && e.UpgradeUUID == u.UUID {
			given = append(given, strings.Split(rest, ", ")...)
		}
	}
	var out []string
	for _, name := range health.Names {
		if slices.Contains(given, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// withRecordedSkips is o with the checks skipped earlier in upgrade u added to o.Skip, and
// those it added.
func (w *Workflow) withRecordedSkips(ctx context.Context, u state.Upgrade, o health.Options) (health.Options, []string, error) {
	recorded, err := w.RecordedSkips(ctx, u)
	if err != nil {
		return o, nil, err
	}
	var added []string
	for _, s := range recorded {
		if !slices.Contains(o.Skip, s) {
			added = append(added, s)
		}
	}
	o.Skip = append(slices.Clone(o.Skip), added...)
	return o, added, nil
}
