package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/state"
)

// TestExitCode: every package's errors reach the exit status of their class (docs/cli.md), wrapped
// or joined as the commands return them.
func TestExitCode(t *testing.T) {
	refused := errors.New("connection refused")
	transport := func(c sshconn.Class) error { return &sshconn.Error{Host: "h", Class: c, Err: refused} }
	for _, tt := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, exitOK},
		{"plain", errors.New("boom"), exitFailed},
		{"inventory", fmt.Errorf("load: %w", &inventory.Error{File: "i.yml", Msg: "bad"}), exitBadInput},
		{"missing inventory", &inventory.Error{File: "i.yml", Msg: "missing", Err: fs.ErrNotExist}, exitBadInput},
		{"playbook", &playbooks.Error{File: "p.yml", Line: 3, Column: 1, Msg: "bad"}, exitBadInput},
		{"store bad input", fmt.Errorf("--db: %w", state.ErrBadInput), exitBadInput},
		{"conflict", fmt.Errorf("lease: %w", state.ErrConflict), exitConflict},
		{"refused", fmt.Errorf("pre-check: %w", state.ErrRefused), exitRefused},
		{"not found", fmt.Errorf("show: %w", state.ErrNotFound), exitRefused},
		{"dial", &runner.UnreachableError{Host: "h", Err: refused}, exitUnreachable},
		{"unreachable host in a recap", errors.Join(&runner.HostError{Host: "h", Err: &runner.UnreachableError{Host: "h", Err: refused}}), exitUnreachable},
		{"ssh unreachable", transport(sshconn.Unreachable), exitUnreachable},
		{"ssh auth", fmt.Errorf("dial: %w", transport(sshconn.Auth)), exitUnreachable},
		{"ssh host key", transport(sshconn.HostKey), exitUnreachable},
		{"ssh connect timeout", transport(sshconn.Timeout), exitUnreachable},
		{"ssh connection lost", transport(sshconn.Closed), exitFailed},
		{"interrupted", fmt.Errorf("run: %w", context.Canceled), exitInterrupted},
		{"value refused by the database", fmt.Errorf("record failure: %w", state.ErrValueRefused), exitNotRecorded},
		{"bad input wins", errors.Join(state.ErrConflict, &inventory.Error{Msg: "bad"}), exitBadInput},
	} {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}
