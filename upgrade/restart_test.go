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

// A fleet's target raised past a completed upgrade replaces it by a new one, and says which it
// deleted (Workflow.Deleted: its run logs go with it).
func TestHigherTargetReplacesTheCompletedUpgrade(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradeComplete)
	done := f.wantState(t, state.UpgradeComplete)
	var deleted []string
	f.w.Deleted = func(cluster, uuid string) { deleted = append(deleted, cluster+"/"+uuid) }
	err := f.w.Resume(t.Context(), upgrade.ResumeOptions{To: "v1.31.0", RunOptions: upgrade.RunOptions{Until: state.UpgradeStarted}})
	if err != nil {
		t.Fatalf("resume to a higher version: %v", err)
	}
	if u := f.wantState(t, state.UpgradeStarted); u.UUID == done.UUID || len(deleted) != 1 || deleted[0] != done.Cluster+"/"+done.UUID {
		t.Errorf("upgrade %+v, deleted %v; want a new upgrade and the completed one's deletion told", u, deleted)
	}
}
