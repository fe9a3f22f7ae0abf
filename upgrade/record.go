package upgrade

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/recovery"

	"github.com/kupgrade/kupgrade/state"
)

// Defaults of the budgets around recording an outcome.
const (
	defaultRecordFor = 2 * time.Minute  // final writes retry a silent database this long
	defaultProbeFor  = 45 * time.Second // the probe after a failure, on its own budget
	attemptTimeout   = 10 * time.Second // one write attempt: a hung connection is given up on
	firstBackoff     = 100 * time.Millisecond
	maxBackoff       = 5 * time.Second
)

func (w *Workflow) recordFor() time.Duration {
	if w.RecordFor > 0 {
		return w.RecordFor
	}
	return defaultRecordFor
}

func (w *Workflow) probeFor() time.Duration {
	if w.ProbeFor > 0 {
		return w.ProbeFor
	}
	return defaultProbeFor
}

// final reports an error that another attempt cannot change: the compare-and-set found
// someone else's outcome, the write is not allowed at all, or the database refused a value.
func final(err error) bool {
	return errors.Is(err, state.ErrConflict) || errors.Is(err, state.ErrRefused) ||
		errors.Is(err, state.ErrNotFound) || errors.Is(err, state.ErrBadInput) || errors.Is(err, state.ErrBadRow) ||
		errors.Is(err, state.ErrValueRefused)
}

// retryDB runs write (or a read a step cannot do without) until it succeeds, fails for good,
// or ctx ends, backing off between attempts (a database restart or failover takes tens of
// seconds). Every attempt carries the compare-and-set of the write itself, so retrying can never
// write over another's outcome.
func (w *Workflow) retryDB(ctx context.Context, what string, write func(ctx context.Context) error) error {
	wait := firstBackoff
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		err := write(actx)
		cancel()
		if err == nil || final(err) {
			return err
		}
		if ctx.Err() != nil {
			return errors.Join(err, ctx.Err())
		}
		w.log().Warn("database write failed, retrying", "write", what, "attempt", attempt, "in", wait, "error", err)
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, maxBackoff)
	}
}

// recordFailure records req through the one failing path, retrying a database that does not
// answer. When the database refuses a value of it (state.ErrValueRefused: the reason or the
// evidence), the failure is recorded once more with a reason of plain words and no evidence, so
// that the state does not stay in flight for want of a readable reason.
func (w *Workflow) recordFailure(ctx context.Context, req recovery.Request) (recovery.Result, error) {
	var res recovery.Result
	write := func(ctx context.Context) error {
		var err error
		res, err = recovery.Fail(ctx, w.Store, req)
		return err
	}
	err := w.retryDB(ctx, "record failure of "+string(req.Expect), write)
	if !errors.Is(err, state.ErrValueRefused) {
		return res, err
	}
	w.log().Warn("the database refused the failure's reason or evidence: recording it without them", "error", err)
	req.Reason = fmt.Sprintf("%s failed; the database refused its reason and evidence (%d bytes of reason)", req.Expect, len(req.Reason))
	req.Evidence = nil
	if err2 := w.retryDB(ctx, "record failure of "+string(req.Expect), write); err2 != nil {
		return res, errors.Join(err, err2)
	}
	return res, nil
}
