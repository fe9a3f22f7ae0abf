package main

import (
	"context"
	"errors"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
)

// A play's exit status: a failed task wins over unreachable hosts (1); only unreachable hosts
// is 5; an interruption is 130.
func TestPlayOutcomeExitStatus(t *testing.T) {
	unreachable := &runner.HostError{Host: "b", Err: &runner.UnreachableError{Host: "b", Err: errors.New("connection refused")}}
	failed := &runner.HostError{Host: "a", Task: "t", Result: map[string]any{"rc": 2}}
	tests := []struct {
		name  string
		recap *runner.Recap
		err   error
		want  int
	}{
		{"ok", &runner.Recap{Hosts: map[string]*runner.HostRecap{"a": {OK: 1}}}, nil, exitOK},
		{"failed and unreachable", &runner.Recap{Hosts: map[string]*runner.HostRecap{"a": {Failed: 1}, "b": {Unreachable: 1}}},
			errors.Join(failed, unreachable), exitFailed},
		{"only unreachable", &runner.Recap{Hosts: map[string]*runner.HostRecap{"b": {Unreachable: 1}}}, errors.Join(unreachable), exitUnreachable},
		{"interrupted", &runner.Recap{Hosts: map[string]*runner.HostRecap{"a": {Failed: 1}}}, errors.Join(failed, context.Canceled), exitInterrupted},
	}
	for _, tt := range tests {
		if got := exitCode(playOutcome(tt.recap, tt.err)); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}
