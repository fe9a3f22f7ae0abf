package state

import "errors"

// Error classes. Callers wrap them with %w; cmd maps each class to one exit status (CLI.md).
var (
	// ErrRefused: a pre-check or a transition rule refused; nothing was written (exit 3).
	ErrRefused = errors.New("refused")
	// ErrConflict: another operation holds the lease, or the state changed underneath; nothing
	// was written (exit 4).
	ErrConflict = errors.New("conflict")
	// ErrNotFound: no upgrade (or host) of that name in the store (exit 3).
	ErrNotFound = errors.New("not found")
	// ErrBadInput: malformed user input such as a DSN or a version (exit 2).
	ErrBadInput = errors.New("bad input")
)
