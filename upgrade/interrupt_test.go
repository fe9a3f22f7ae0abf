package upgrade_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// After Ctrl-C, the finding's advice says the operator interrupted the step, not that a cause
// on the host is to be fixed; a failure with no interrupt keeps the usual advice.
func TestInterruptAdviceNamesTheOperator(t *testing.T) {
	for _, interrupt := range []bool{true, false} {
		f := newFixture(t)
		f.at(t, state.UpgradedFirstMaster)
		ctx, cancel := context.WithCancelCause(t.Context())
		f.c.onPlay = func(pctx context.Context, name, limit string) (*runner.Recap, error, bool) {
			if !interrupt {
				return failed(limit, 1, "preflight failed"), nil, true
			}
			cancel(fault.ErrInterrupted)
			<-pctx.Done()
			return &runner.Recap{}, pctx.Err(), true
		}
		var se *upgrade.StepError
		if err := f.w.Do(ctx, controlPlane("controller-1")); !errors.As(err, &se) || se.Finding == nil {
			t.Fatalf("interrupt %v: err = %v, want a step error with a finding", interrupt, err)
		}
		named := strings.HasPrefix(se.Finding.Next, "interrupted by the operator")
		if named != interrupt || interrupt && strings.Contains(se.Finding.Next, "fix the cause") {
			t.Errorf("interrupt %v: the advice is %q", interrupt, se.Finding.Next)
		}
		cancel(nil)
	}
}
