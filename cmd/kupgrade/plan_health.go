package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/upgrade"
)

// planHealth is what a plan says of the health checks: their verdict and lines (run before a
// new upgrade starts), and the overrides in force: those given on this command line and, for a
// recorded upgrade, those recorded at its start or before a hop (they hold for the upgrade).
type planHealth struct {
	Verdict   *string         `json:"verdict"` // null: not run (a recorded upgrade)
	Checks    []health.Result `json:"checks"`
	Overrides []string        `json:"overrides"`
	refusal   error
}

// planHealth runs the checks for p when it plans a new upgrade and hf is given, and gathers the
// overrides in force. A plan whose checks refuse has no next command: it would fail.
func (a *app) planHealth(ctx context.Context, w *upgrade.Workflow, p *upgrade.Preview, hf *healthFlags) (*planHealth, error) {
	ph := &planHealth{Checks: []health.Result{}, Overrides: []string{}}
	if hf != nil {
		ph.Overrides = append(ph.Overrides, hf.SkipCheck...)
	}
	if p.Exists {
		return ph, a.addRecordedSkips(ctx, w, ph)
	}
	if hf == nil || p.To == "" {
		return ph, nil
	}
	rs, err := a.runHealth(ctx, w, *hf, p.From, p.To)
	if err != nil {
		return nil, err
	}
	verdict := healthVerdict(rs)
	ph.Checks, ph.Verdict, ph.refusal = rs, &verdict, upgrade.HealthGate(rs)
	switch {
	case ph.refusal != nil:
		p.Next = ""
	case p.Next != "" && len(hf.SkipCheck) > 0:
		p.Next += " --skip-check " + strings.Join(hf.SkipCheck, ",") // the start must be given them too
	}
	return ph, nil
}

// addRecordedSkips adds to ph the overrides recorded for the cluster's upgrade.
func (a *app) addRecordedSkips(ctx context.Context, w *upgrade.Workflow, ph *planHealth) error {
	u, err := w.Store.Upgrade(ctx, w.Cluster)
	if err != nil {
		return err
	}
	recorded, err := w.RecordedSkips(ctx, u)
	for _, s := range recorded {
		if !slices.Contains(ph.Overrides, s) {
			ph.Overrides = append(ph.Overrides, s)
		}
	}
	return err
}

// writePlanHealth writes the checks' verdict and lines, and the overrides in force, first.
func writePlanHealth(w io.Writer, ph *planHealth, to string) {
	if ph == nil {
		return
	}
	if ph.Verdict != nil {
		writeHealth(w, to, ph.Checks, true)
	}
	if len(ph.Overrides) > 0 {
		fmt.Fprintf(w, "overrides in force: --skip-check %s (recorded as an event at the start; they hold for every hop of the upgrade)\n",
			strings.Join(ph.Overrides, ","))
	}
	if ph.Verdict != nil || len(ph.Overrides) > 0 {
		fmt.Fprintln(w)
	}
}
