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
