package upgrade_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/health"
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

// A failed packages check names the way a site whose platform places kubeadm itself says so.
func TestHealthGateNamesInstallPackagesFalse(t *testing.T) {
	err := upgrade.HealthGate([]health.Result{{Check: health.CheckPackages, Status: health.Fail, Message: "1 package version(s) no repository offers"}})
	if !errors.Is(err, state.ErrRefused) || !strings.Contains(err.Error(), "`kupgrade_install_packages: false`") || !strings.Contains(err.Error(), "--skip-check packages") {
		t.Errorf("HealthGate = %v, want a refusal naming kupgrade_install_packages: false and --skip-check packages", err)
	}
	if err := upgrade.HealthGate([]health.Result{{Check: health.CheckDrain, Status: health.Fail}}); strings.Contains(err.Error(), "kupgrade_install_packages") {
		t.Errorf("HealthGate of a drain failure names the packages setting: %v", err)
	}
}
