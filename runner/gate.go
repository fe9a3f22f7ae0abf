package runner

import (
	"context"
	"errors"
)

// ErrGateClosed marks work that PlayOptions.Gate refused: a task, a retry attempt or a loop item
// that did not start. The failure is final: neither ignore_errors nor until turns it into a
// success, and the loop's further items do not start either.
var ErrGateClosed = errors.New("refused by the gate")

// gate asks PlayOptions.Gate whether what may start: nil when it may, else the failure to record
// and its cause (ErrGateClosed, or the context's error when the run was interrupted).
func (e *playExec) gate(ctx context.Context, what string) (map[string]any, error) {
	if e.po.Gate == nil {
		return nil, nil
	}
	err := e.po.Gate(ctx)
	if err == nil {
		return nil, nil
	}
	res := failure(what + " not started: " + err.Error())
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, ErrGateClosed
}
