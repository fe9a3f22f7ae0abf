package upgrade_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// refusingStore refuses, as MariaDB does a string that is not UTF-8 (error 1366), every failure
// written with evidence.
type refusingStore struct {
	state.Store
	refused atomic.Int32
}

func (s *refusingStore) Apply(ctx context.Context, c state.Change) (state.Upgrade, error) {
	if c.To().Failed() && len(c.Evidence()) > 0 {
		s.refused.Add(1)
		return state.Upgrade{}, fmt.Errorf("write event: %w: Error 1366: Incorrect string value", state.ErrValueRefused)
	}
	return s.Store.Apply(ctx, c)
}

// A failure whose reason or evidence the database refuses is not retried (the answer would not
// change) and does not stay in flight: it is recorded again in plain words, without them.
func TestRefusedFailureIsRecordedInPlainWords(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	rs := &refusingStore{Store: f.st}
	f.w.Store, f.w.RecordFor = rs, 3*time.Second
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		r := failed("controller-1", 1, "error execution phase \xff\xfe: boom\n")
		return r, r.Err(), true
	}
	err := f.w.Do(t.Context(), controlPlane("controller-1"))
	var se *upgrade.StepError
	if !errors.As(err, &se) || !se.Recorded || !errors.Is(err, upgrade.ErrFailed) {
		t.Fatalf("ControlPlane = %v, want a recorded failure", err)
	}
	if n := rs.refused.Load(); n != 1 {
		t.Errorf("the refused write was sent %d times, want once: a refused value is final", n)
	}
	f.wantState(t, state.UpgradingSecondMasterFailed)
}
