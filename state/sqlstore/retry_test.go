package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"testing/synctest"

	_ "modernc.org/sqlite"

	"github.com/kupgrade/kupgrade/state"
)

var (
	errGone    = errors.New("connection reset by peer")  // what the dialect calls lost
	errAborted = errors.New("deadlock found; try again") // what the dialect calls retryable
	errValue   = errors.New("incorrect string value")    // what the dialect calls a refused value
)

func retryStore(t *testing.T) *Store {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	d := &Dialect{
		Retryable: func(err error) bool { return errors.Is(err, errAborted) },
		Lost:      func(err error) bool { return errors.Is(err, errGone) },
		Refused:   func(err error) bool { return errors.Is(err, errValue) },
	}
	return &Store{db: db, d: d, log: slog.New(slog.DiscardHandler)}
}

// lostAtCommit is the error tryTx returns when COMMIT lost its answer.
var lostAtCommit = fmt.Errorf("commit: %w: %w", errCommitUnknown, errGone)

// Which failures a transaction is run again after, and which it never is: a lost connection
// before COMMIT and an abort are retried; a COMMIT whose answer was lost is looked up, and run
// again only when it was not committed; a refusal (a compare-and-set that found the state
// changed) is returned at once.
func TestInTxRetries(t *testing.T) {
	tests := []struct {
		name      string
		errs      []error // fn's result, run after run; nil afterwards
		committed func(context.Context) (bool, error)
		runs      int
		wantErr   error
	}{
		{"lost before commit", []error{errGone, errGone}, nil, 3, nil},
		{"aborted by the database", []error{errAborted}, nil, 2, nil},
		{"aborted every time", slices.Repeat([]error{errAborted}, maxAttempts+1), nil, maxAttempts, errAborted},
		{"commit lost, it was committed", []error{lostAtCommit}, func(context.Context) (bool, error) { return true, nil }, 1, nil},
		{"commit lost, it was not", []error{lostAtCommit}, func(context.Context) (bool, error) { return false, nil }, 2, nil},
		{"commit lost, nobody can tell", []error{lostAtCommit}, nil, 1, errCommitUnknown},
		{"state changed", []error{state.ErrConflict}, nil, 1, state.ErrConflict},
		{"value refused", []error{errValue}, nil, 1, state.ErrValueRefused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { // the back-off between runs waits on the bubble's clock
				s := retryStore(t)
				runs := 0
				err := s.inTxChecked(t.Context(), func(*sql.Tx) error {
					runs++
					if runs <= len(tc.errs) {
						return tc.errs[runs-1]
					}
					return nil
				}, tc.committed)
				if runs != tc.runs || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
					t.Fatalf("ran %d times, returned %v; want %d runs and %v", runs, err, tc.runs, tc.wantErr)
				}
			})
		})
	}
}

// A read outside a transaction is read again after a lost connection or an abort, up to
// maxAttempts times; an unreadable row or any other error comes back at once, with the row.
func TestReadsAgain(t *testing.T) {
	rowErr := &state.RowError{Cluster: "c", Table: "kube_upgrade", Column: "created_at", Err: errors.New("bad time")}
	tests := []struct {
		name    string
		errs    []error
		runs    int
		wantErr error
	}{
		{"lost twice", []error{errGone, errGone}, 3, nil},
		{"aborted", []error{errAborted}, 2, nil},
		{"lost every time", slices.Repeat([]error{errGone}, maxAttempts+1), maxAttempts, errGone},
		{"unreadable row", []error{rowErr}, 1, state.ErrBadRow},
		{"not found", []error{state.ErrNotFound}, 1, state.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { // the back-off between runs waits on the bubble's clock
				s := retryStore(t)
				runs := 0
				v, err := again(t.Context(), s, func() (int, error) {
					runs++
					if runs <= len(tc.errs) {
						return runs, tc.errs[runs-1]
					}
					return runs, nil
				})
				if runs != tc.runs || v != runs || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
					t.Fatalf("ran %d times, returned %d, %v; want %d runs, the last run's value and %v", runs, v, err, tc.runs, tc.wantErr)
				}
				if got, want := s.Retries.Reads.Load(), int64(tc.runs-1); got != want {
					t.Errorf("Retries.Reads = %d, want %d", got, want)
				}
			})
		})
	}
}
