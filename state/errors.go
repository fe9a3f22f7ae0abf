package state

import (
	"errors"
	"fmt"

	"github.com/kupgrade/kupgrade/internal/fault"
)

// Error classes, the same values as internal/fault's, so that errors.Is finds a class whichever
// package wrapped it. Callers wrap them with %w; cmd maps each class to one exit status (docs/cli.md).
var (
	// ErrRefused: a pre-check or a transition rule refused; nothing was written (exit 3).
	ErrRefused = fault.ErrRefused
	// ErrConflict: another operation holds the lease, or the state changed underneath; nothing
	// was written (exit 4).
	ErrConflict = fault.ErrConflict
	// ErrNotFound: no upgrade (or host) of that name in the store (exit 3).
	ErrNotFound = fault.ErrNotFound
	// ErrBadInput: malformed user input such as a DSN or a version (exit 2).
	ErrBadInput = fault.ErrBadInput
	// ErrValueRefused: the database refused a value (invalid UTF-8, too long for its column):
	// final, never retried; the write it belongs to is not recorded (exit 6).
	ErrValueRefused = fault.ErrValueRefused
	// ErrBadRow: a row of the database holds a value kupgrade cannot read (a time that does not
	// parse, a state that is not a state): a hand edit gone wrong. Always wrapped by a *RowError.
	ErrBadRow = errors.New("unreadable row")
)

// RowError is one column of one cluster's row that cannot be read. A store returns it (joined
// when there are several) together with every other column of the row, so that a caller that
// can do without that column (the audit's report, a forced fail, a delete) still can; callers
// that cannot simply fail on the error as on any other.
type RowError struct {
	Cluster string
	Host    string // the host of a host or kube_host_upgrade row, "" for the others
	Table   string // kube_upgrade, upgrade_lease, kube_host_upgrade or host
	Column  string
	Err     error // what is wrong with the value (it names the value)
}

func (e *RowError) Error() string {
	of := fmt.Sprintf("cluster %q", e.Cluster)
	if e.Host != "" {
		of += " host " + e.Host
	}
	return fmt.Sprintf("unreadable %s.%s of %s: %v", e.Table, e.Column, of, e.Err)
}

// Unwrap makes errors.Is(err, ErrBadRow) hold, and keeps the cause reachable.
func (e *RowError) Unwrap() []error { return []error{ErrBadRow, e.Err} }

// RowErrors returns every *RowError inside err (through wrapping and errors.Join), in order.
func RowErrors(err error) []*RowError {
	var out []*RowError
	var walk func(error)
	walk = func(err error) {
		if re, ok := err.(*RowError); ok {
			out = append(out, re)
			return
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}
