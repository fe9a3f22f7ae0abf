package upgrade

import (
	"context"
	"errors"
	"time"

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
// someone else's outcome, or the write is not allowed at all.
func final(err error) bool {
	return errors.Is(err, state.ErrConflict) || errors.Is(err, state.ErrRefused) ||
		errors.Is(err, state.ErrNotFound) || errors.Is(err, state.ErrBadInput) || errors.Is(err, state.ErrBadRow)
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
