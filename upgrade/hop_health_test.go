package upgrade_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// The health checks run again before each hop: a check that fails (here the nodes, which the
// controller cannot list) ends `upgrade run` with the first hop done and the second not
// started, writing nothing; the same run with the check overridden goes on, and the override is
// recorded.
func TestHealthChecksBeforeEachHop(t *testing.T) {
	f := newFixtureWith(t, twoPlusOneOffering)
	if _, err := f.w.Start(t.Context(), "v1.31.2", "", false); err != nil {
		t.Fatal(err)
	}
	err := f.w.Run(t.Context(), upgrade.RunOptions{HopHealth: &health.Options{}})
	if !errors.Is(err, state.ErrRefused) || !strings.Contains(err.Error(), "hop 2 of 2 (v1.31.2) does not start") ||
		!strings.Contains(err.Error(), "health checks failed: "+health.CheckNodes) {
		t.Fatalf("run = %v, want the second hop refused naming the failed check", err)
	}
	if u := f.wantState(t, state.UpgradedSecondMaster); u.Hop != 0 {
		t.Fatalf("refused at hop %d, want still hop 1", u.Hop+1)
	}
	skip := &health.Options{Skip: health.Names}
	if err := f.w.Run(t.Context(), upgrade.RunOptions{HopHealth: skip}); err != nil {
		t.Fatalf("run with every check overridden: %v", err)
	}
	f.wantState(t, state.UpgradeComplete)
	evs, err := f.st.Events(t.Context(), "default", 1000)
	if err != nil {
		t.Fatal(err)
	}
	recorded := false
	for _, e := range evs {
		recorded = recorded || strings.Contains(e.Reason, "health checks skipped by --skip-check: "+health.CheckNodes)
	}
	if !recorded {
		t.Error("the overridden checks were not recorded as an event")
	}
}

// An override given to `upgrade start` holds for the whole upgrade: recorded at the start, it
// is honoured before the next hop by an `upgrade run` that does not repeat it (on the real lab
// the run stopped between hops: "hop 2 of 2 does not start: refused: health checks failed:
// drain"), and recorded again for that hop.
func TestSkipGivenAtStartHoldsForLaterHops(t *testing.T) {
	f := newFixtureWith(t, twoPlusOneOffering)
	if _, err := f.w.Start(t.Context(), "v1.31.2", "", false); err != nil {
		t.Fatal(err)
	}
	if err := f.w.RecordSkippedChecks(t.Context(), health.Names); err != nil {
		t.Fatal(err)
	}
	u, err := f.st.Upgrade(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.w.RecordedSkips(t.Context(), u); err != nil || strings.Join(got, ",") != strings.Join(health.Names, ",") {
		t.Fatalf("RecordedSkips = %v, %v; want every check", got, err)
	}
	if err := f.w.Run(t.Context(), upgrade.RunOptions{HopHealth: &health.Options{}}); err != nil {
		t.Fatalf("run without --skip-check after a start with it: %v", err)
	}
	f.wantState(t, state.UpgradeComplete)
	evs, err := f.st.Events(t.Context(), "default", 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if strings.HasPrefix(e.Reason, "health checks skipped by --skip-check: ") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d events record the skipped checks, want 2 (the start's, the second hop's)", n)
	}
}
