package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// closesAfter is a gate that opens n times, then stays closed (the lease lost mid-task).
func closesAfter(n int32) func(context.Context) error {
	var asked atomic.Int32
	return func(context.Context) error {
		if asked.Add(1) > n {
			return errLeaseLost
		}
		return nil
	}
}

// starts counts the lines the play's command appended to log: how often "kubeadm" started.
func starts(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// A retried command (until/retries) asks the gate before every attempt: once the gate closes
// after the first, no second attempt starts, and ignore_errors does not make the refusal a
// success.
func TestGateAskedBeforeEveryRetry(t *testing.T) {
	log := filepath.Join(t.TempDir(), "kubeadm.log")
	_, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1
  gather_facts: false
  tasks:
    - name: kubeadm upgrade
      shell: "echo started >> `+log+`; exit 1"
      register: up
      until: up.rc == 0
      retries: 3
      delay: 0
      ignore_errors: true
    - name: after
      command: "true"
`, runner.PlayOptions{Gate: closesAfter(1)})
	if n := starts(t, log); n != 1 {
		t.Errorf("kubeadm started %d times, want once: the gate closed after the first attempt", n)
	}
	if !errors.Is(err, runner.ErrGateClosed) {
		t.Errorf("play error = %v, want the gate's refusal", err)
	}
	if got := joined(rec.results("h1")); got != "task_failed kubeadm upgrade" {
		t.Errorf("h1 results %q, want the retried task failed and nothing after it", got)
	}
}

// A loop asks the gate before every item: once it closes, no further item starts.
func TestGateAskedBeforeEveryLoopItem(t *testing.T) {
	log := filepath.Join(t.TempDir(), "kubeadm.log")
	_, err, _ := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1
  gather_facts: false
  tasks:
    - name: kubeadm per item
      shell: "echo {{ item }} >> `+log+`"
      loop: [a, b, c]
`, runner.PlayOptions{Gate: closesAfter(1)})
	if n := starts(t, log); n != 1 {
		t.Errorf("%d items started, want only the first: the gate closed after it", n)
	}
	if !errors.Is(err, runner.ErrGateClosed) {
		t.Errorf("play error = %v, want the gate's refusal", err)
	}
}

// An open gate changes nothing: every attempt and every item runs.
func TestOpenGateRunsEveryAttemptAndItem(t *testing.T) {
	log := filepath.Join(t.TempDir(), "kubeadm.log")
	_, _, _ = run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1
  gather_facts: false
  tasks:
    - name: retried
      shell: "echo x >> `+log+`; exit 1"
      register: up
      until: up.rc == 0
      retries: 2
      delay: 0
      ignore_errors: true
    - name: looped
      shell: "echo {{ item }} >> `+log+`"
      loop: [a, b]
`, runner.PlayOptions{Gate: func(context.Context) error { return nil }})
	if n := starts(t, log); n != 5 {
		t.Errorf("%d commands started, want 3 attempts and 2 items", n)
	}
}
