package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/state"
)

type fleetShowCmd struct {
	Fleet string `help:"Show this fleet only (default: every fleet of the database)."`
}

func (c *fleetShowCmd) Run(ctx context.Context, a *app) error {
	st, err := a.Reader(ctx)
	if err != nil {
		return err
	}
	rows, err := st.FleetRows(ctx, c.Fleet)
	if err != nil {
		return err
	}
	sums := fleet.Overviews(rows, st.Now())
	if a.json() {
		if sums == nil {
			sums = []fleet.Overview{}
		}
		return writeJSON(a.stdout, sums)
	}
	if len(sums) == 0 {
		fmt.Fprintln(a.stdout, "no fleet in this database: start one with `kupgrade fleet run --to VERSION --inventories DIR`")
		return nil
	}
	for i, s := range sums {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		writeFleet(a.stdout, s, st.Now())
	}
	return nil
}

// writeFleet prints one fleet's summary: totals and estimate, clusters per state, then those
// that need a look.
func writeFleet(w io.Writer, s fleet.Overview, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FLEET\tCLUSTERS\tDONE\tFAILED\tPENDING\tCLAIMED\tPROGRESS\tRATE\tLEFT")
	left := "-"
	if s.Left > 0 {
		left = "about " + s.Left.String()
	}
	fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%.0f%%\t%.1f/min\t%s\n", s.Fleet, s.Total, s.Outcomes[state.FleetDone],
		s.Outcomes[state.FleetFailed], s.Outcomes[state.FleetPending], s.Claimed, 100*s.Progress, s.Rate, left)
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATE\tCLUSTERS")
	states := make([]string, 0, len(s.States))
	for k := range s.States {
		states = append(states, k)
	}
	sort.Strings(states)
	for _, k := range states {
		fmt.Fprintf(tw, "%s\t%d\n", k, s.States[k])
	}
	tw.Flush()
	writeFleetList(w, "FAILING", s.Failing, now)
	writeFleetList(w, "STUCK", s.Stuck, now)
	if len(s.Runners) > 0 {
		fmt.Fprintf(w, "\nrunners holding claims: %d (%s)\n", len(s.Runners), joinMax(s.Runners, 5))
	}
}

func writeFleetList(w io.Writer, title string, cs []fleet.OverviewCluster, now time.Time) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s (%d)\n", title, len(cs))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tSTATE\tFOR\tWHY")
	for i, c := range cs {
		if i == 20 {
			fmt.Fprintf(tw, "... and %d more (-o json lists them all)\t\t\t\n", len(cs)-i)
			break
		}
		age := "-"
		if !c.Since.IsZero() {
			age = now.Sub(c.Since).Round(time.Second).String()
		}
		why := c.Why
		if c.LastError != "" {
			why += ": " + c.LastError
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Cluster, c.State, age, why)
	}
	tw.Flush()
	if next := cs[0].Next; next != "" { // one command goes on with every cluster of a fleet
		fmt.Fprintf(w, "next: %s\n", next)
	}
}

func joinMax(xs []string, n int) string {
	out := ""
	for i, x := range xs {
		if i == n {
			return out + fmt.Sprintf(", and %d more", len(xs)-n)
		}
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
