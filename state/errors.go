package state

import "github.com/kupgrade/kupgrade/internal/fault"

// Error classes, the same values as internal/fault's, so that errors.Is finds a class whichever
// package wrapped it. Callers wrap them with %w; cmd maps each class to one exit status (CLI.md).
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
)
