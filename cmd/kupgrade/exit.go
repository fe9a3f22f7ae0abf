package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/runner"
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
	a.printError(a.redact(msg), code)
	return code
}

// errorEvent is the final error with -o json: one JSON line on stderr, like the events of the
// stream on stdout, so that a program reads why kupgrade stopped without parsing a sentence.
type errorEvent struct {
	Time       string           `json:"time"`
	Event      runner.EventKind `json:"event"`
	Message    string           `json:"message"`
	ExitStatus int              `json:"exit_status"`
}

// printError prints the final error message (already redacted) and the status it exits with.
func (a *app) printError(msg string, code int) {
	if !a.json() {
		fmt.Fprintf(a.stderr, "kupgrade: %s\n", msg)
		return
	}
	b, _ := json.Marshal(errorEvent{Time: rfc3339(time.Now()), Event: runner.EventError, Message: msg, ExitStatus: code})
	fmt.Fprintf(a.stderr, "%s\n", b)
}
