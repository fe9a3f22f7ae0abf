package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// PlayOptions.Hosts names hosts exactly: an IPv6 literal's ':' does not split it as a --limit
// pattern would, and the other hosts do not run.
func TestHostsByExactNameIncludingIPv6(t *testing.T) {
	inv := `all:
  hosts:
    "fd00::1":
    "fd00::2":
    "fd00::3":
`
	recap, err, rec := run(t, &runnertest.LocalDialer{}, inv, `- hosts: all
  gather_facts: false
  tasks:
    - name: hello
      command: "true"
`, runner.PlayOptions{Hosts: []string{"fd00::1", "fd00::3"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"fd00::1", "fd00::3"} {
		if got := rec.results(h); !contains(got, "task_changed hello") {
			t.Errorf("%s results %q, want the task run", h, got)
		}
	}
	if _, ran := recap.Hosts["fd00::2"]; ran {
		t.Errorf("fd00::2 ran although it was not named")
	}
}

// A gate that refuses fails the task without running it (the lease keeper's "no new work").
func TestGateStopsNewTasks(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	_, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1
  gather_facts: false
  tasks:
    - name: first
      command: "touch `+marker+`"
`, runner.PlayOptions{Gate: func(context.Context) error { return errLeaseLost }})
	if _, statErr := os.Stat(marker); statErr == nil {
		t.Error("the task ran through a closed gate")
	}
	if err == nil {
		t.Fatal("play succeeded through a closed gate")
	}
	if got := rec.results("h1"); joined(got) != "task_failed first" {
		t.Errorf("h1 results %q, want the task failed unrun", got)
	}
}

var errLeaseLost = errorString("lease lost")

type errorString string

func (e errorString) Error() string { return string(e) }
