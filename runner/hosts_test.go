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

// environment values are templated with the host's variables, as Ansible templates them (they
// used to reach the command as the literal "{{ ... }}").
func TestEnvironmentIsTemplated(t *testing.T) {
	recap, err, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n      site: lab\n", `- hosts: all
  gather_facts: false
  vars:
    prefix: "/opt"
  tasks:
    - name: env
      shell: 'printf %s "$WHERE"'
      environment:
        WHERE: "{{ prefix }}/{{ site }}-{{ inventory_hostname }}"
      register: out
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := recap.Registered["h1"]["out"].(map[string]any)["stdout"]; got != "/opt/lab-h1" {
		t.Errorf("WHERE = %q, want /opt/lab-h1", got)
	}
}

// Every handler that listens to a notified topic runs, not only the first one.
func TestEveryListeningHandlerRuns(t *testing.T) {
	_, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: change
      command: "true"
      notify: restart web stack
  handlers:
    - name: restart nginx
      command: "true"
      listen: restart web stack
    - name: restart php
      command: "true"
      listen: restart web stack
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"task_changed restart nginx", "task_changed restart php"} {
		if got := rec.results("h1"); !contains(got, want) {
			t.Errorf("h1 results %q, want %q", got, want)
		}
	}
}

// file: path=~/.kube means the home of the user on the host, not a directory named "~".
func TestFileExpandsTildeOnTheHost(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	d := &runnertest.LocalDialer{Dir: work, Env: []string{"HOME=" + home}}
	_, err, _ := run(t, d, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: kube dir
      file:
        path: ~/.kube
        state: directory
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(home, ".kube")); err != nil || !fi.IsDir() {
		t.Errorf("~/.kube not created in the host's home: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "~")); err == nil {
		t.Error("a directory named ~ was created")
	}
}
