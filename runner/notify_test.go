package runner_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// A notify naming no handler loads and runs as long as no changed task notifies it; listen
// topics count as names (ansible-core 2.14 behaves so).
func TestNotifyOfMissingHandlerIsHarmlessUntilChanged(t *testing.T) {
	_, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1
  gather_facts: false
  tasks:
    - name: unchanged
      command: "true"
      changed_when: false
      notify: nothere
    - name: changed
      command: "true"
      notify: topic
  handlers:
    - name: real
      debug: {msg: ran}
      listen: topic
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"task_ok unchanged", "task_changed changed", "task_ok real"}
	if got := rec.results("h1"); !slices.Equal(got, want) {
		t.Errorf("h1 results = %q, want %q", got, want)
	}
}

// A changed task that notifies a missing handler ends the whole run there, as Ansible's ERROR!
// does: no later task, handler or play runs.
func TestNotifyOfMissingHandlerEndsTheRunWhenChanged(t *testing.T) {
	_, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1
  gather_facts: false
  tasks:
    - name: changed
      command: "true"
      notify: [real, nothere]
    - name: later
      debug: {msg: later}
  handlers:
    - name: real
      debug: {msg: ran}
- hosts: h1
  gather_facts: false
  tasks:
    - name: second play
      debug: {msg: two}
`, runner.PlayOptions{})
	if !errors.Is(err, fault.ErrBadInput) || !strings.Contains(err.Error(), `notifies "nothere": the requested handler "nothere" was not found`) {
		t.Fatalf("err = %v, want the missing handler named (bad input)", err)
	}
	if !strings.Contains(err.Error(), "site.yml:4") {
		t.Errorf("err = %v, want the task's file:line", err)
	}
	if got := rec.results("h1"); !slices.Equal(got, []string{"task_changed changed"}) {
		t.Errorf("h1 results = %q, want only the changed task", got)
	}
}
