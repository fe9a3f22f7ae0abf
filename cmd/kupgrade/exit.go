package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/upgrade"
)

// Exit statuses of CLI.md.
const (
	exitOK          = 0
	exitFailed      = 1
	exitBadInput    = 2
	exitRefused     = 3
	exitConflict    = 4
	exitUnreachable = 5
	exitNotRecorded = 6
	exitInterrupted = 130
)

// exitCode maps an error to its exit status: the one place where classes become numbers.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, upgrade.ErrNotRecorded): // before the classes of its cause
		return exitNotRecorded
	case errors.Is(err, fault.ErrBadInput):
		return exitBadInput
	case errors.Is(err, fault.ErrConflict):
		return exitConflict
	case errors.Is(err, fault.ErrRefused), errors.Is(err, fault.ErrNotFound):
		return exitRefused
	case errors.Is(err, fault.ErrUnreachable):
		return exitUnreachable
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	default:
		return exitFailed
	}
}

// report prints err for a person (or as JSON) on stderr and returns its exit status.
func (a *app) report(err error) int {
	code := exitCode(err)
	msg := a.commands(err.Error())
	if errors.Is(err, fault.ErrNotFound) {
		msg += a.otherClusters()
	}
	fmt.Fprintf(a.stderr, "kupgrade: %s\n", a.redact(msg))
	return code
}
