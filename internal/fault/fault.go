package fault

import "errors"

// Error classes, with the exit status cmd gives each (docs/cli.md).
var (
	// ErrBadInput: malformed user input such as a DSN, a version, an inventory, a playbook or
	// a --limit pattern (exit 2).
	ErrBadInput = errors.New("bad input")
	// ErrRefused: a pre-check or a transition rule refused; nothing was written (exit 3).
	ErrRefused = errors.New("refused")
	// ErrNotFound: no upgrade (or host) of that name in the store (exit 3).
	ErrNotFound = errors.New("not found")
	// ErrConflict: another operation holds the lease, or the state changed underneath; nothing
	// was written (exit 4).
	ErrConflict = errors.New("conflict")
	// ErrUnreachable: a host could not be reached or used at all (connect, authentication,
	// host key, connect timeout), or its connection was lost during a task (exit 5).
	ErrUnreachable = errors.New("unreachable")
	// ErrValueRefused: the database refused a value it was given (MySQL's data errors: a string
	// that is not valid UTF-8, a value too long for its column). Another attempt gets the same
	// answer, so it is final; the outcome being written is not recorded (exit 6).
	ErrValueRefused = errors.New("value refused by the database")
)

// Mark returns an error that reads exactly as err and is also of class: errors.Is finds class
// as well as everything in err's chain. Mark(nil, class) is nil.
func Mark(err, class error) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, class: class}
}

type marked struct{ err, class error }

func (m *marked) Error() string   { return m.err.Error() }
func (m *marked) Unwrap() []error { return []error{m.err, m.class} }

// ErrInterrupted is the cause of a context the operator cancelled (Ctrl-C, SIGTERM): advice after
// it says so instead of looking for a fault on the host.
var ErrInterrupted = errors.New("interrupted by the operator")
