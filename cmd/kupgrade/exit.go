package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/upgrade"
)

// Exit statuses of docs/cli.md.
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
	case errors.Is(err, upgrade.ErrNotRecorded), errors.Is(err, fault.ErrValueRefused): // before the classes of its cause
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
	msg := a.commands(message(err))
	if errors.Is(err, fault.ErrNotFound) {
		msg += a.otherClusters()
	}
	if !a.json() {
		a.printError(a.redact(msg), code)
		return code
	}
	ev := errorEvent{Time: rfc3339(time.Now()), Event: runner.EventError, Message: a.redact(msg), ExitStatus: code}
	var se *upgrade.StepError
	if errors.As(err, &se) {
		ev.Step, ev.Host, ev.State = se.Step, se.Host, string(se.State)
		ev.Retry, ev.Finding = a.command(se.Retry), findingJSONOf(se.Finding, a.commands)
	}
	b, _ := json.Marshal(ev)
	fmt.Fprintf(a.stdout, "%s\n", b)
	return code
}

// findingJSONOf is the probe's finding as -o json prints it (its next command completed with the
// global flags), nil when there is none.
func findingJSONOf(f *kubeadm.Finding, commands func(string) string) *findingJSON {
	if f == nil {
		return nil
	}
	return &findingJSON{Class: string(f.Class), Summary: f.Summary, Next: commands(f.Next)}
}

type findingJSON struct {
	Class   string `json:"class"`
	Summary string `json:"summary"`
	Next    string `json:"next,omitempty"`
}

// errorEvent is the final error with -o json: one JSON line on stdout, the last of the stream of
// events, so that a program reads why kupgrade stopped from the one stream it reads, without
// parsing a sentence (stderr keeps the diagnostics; --log-format json makes them JSON too).
type errorEvent struct {
	Time       string           `json:"time"`
	Event      runner.EventKind `json:"event"`
	Message    string           `json:"message"`
	ExitStatus int              `json:"exit_status"`
	// A failed step: where it failed, the state it left, the probe's finding and the retry.
	Step    string       `json:"step,omitempty"`
	Host    string       `json:"host,omitempty"`
	State   string       `json:"state,omitempty"`
	Finding *findingJSON `json:"finding,omitempty"`
	Retry   string       `json:"retry,omitempty"`
}

// printError prints the final error message (already redacted) and the status it exits with.
func (a *app) printError(msg string, code int) {
	if !a.json() {
		fmt.Fprintf(a.stderr, "kupgrade: %s\n", msg)
		return
	}
	b, _ := json.Marshal(errorEvent{Time: rfc3339(time.Now()), Event: runner.EventError, Message: msg, ExitStatus: code})
	fmt.Fprintf(a.stdout, "%s\n", b)
}
