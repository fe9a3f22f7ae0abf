package upgrade_test

import (
	"errors"
	"testing"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// A fleet's target lowered below a completed upgrade's version is a downgrade: it is refused
// before anything is written, and the completed upgrade stays on record (it was deleted first).
func TestLowerTargetKeepsTheCompletedUpgrade(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradeComplete)
	done := f.wantState(t, state.UpgradeComplete)
	err := f.w.Resume(t.Context(), upgrade.ResumeOptions{To: "v1.29.4"})
	if !errors.Is(err, state.ErrRefused) {
		t.Fatalf("resume to a lower version: %v, want a refusal", err)
	}
	u := f.wantState(t, state.UpgradeComplete)
	if u.UUID != done.UUID || u.ToVersion != "v1.30.1" {
		t.Errorf("the completed upgrade was replaced: %+v, was %+v", u, done)
	}
}
