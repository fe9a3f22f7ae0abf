package upgrade_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// refuseAborted refuses the write that ends an abort, as when someone failed the operation
// meanwhile (a compare-and-set that finds another outcome).
type refuseAborted struct{ state.Store }

func (s *refuseAborted) Apply(ctx context.Context, c state.Change) (state.Upgrade, error) {
	if c.To() == state.UpgradeAborted {
		return state.Upgrade{}, fmt.Errorf("%w: state changed underneath", state.ErrConflict)
	}
	return s.Store.Apply(ctx, c)
}

// An abort whose first write (upgrade-aborting) is recorded and whose second is not left the
// state in flight: the error says the outcome is not recorded (exit 6), not a plain failure.
func TestAbortWhoseEndIsNotRecorded(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedNetworking)
	f.w.Store = &refuseAborted{Store: f.st}
	err := f.w.Abort(t.Context())
	if !errors.Is(err, upgrade.ErrNotRecorded) {
		t.Fatalf("abort: %v, want an error marked not recorded (exit 6)", err)
	}
	f.wantState(t, state.UpgradeAborting)
}
