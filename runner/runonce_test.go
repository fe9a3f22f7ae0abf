package runner_test

import (
	"slices"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// A run_once task that fails fails every host of the batch, as in ansible-core 2.14: the other
// hosts run no further task (a rescue, yes) and count neither a failure nor a rescue; a batch
// left with no host ends the playbook.
func TestRunOnceFailureFailsTheBatch(t *testing.T) {
	recap, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: controllers
  gather_facts: false
  tasks:
    - block:
        - name: check
          assert: {that: false}
          run_once: true
      rescue:
        - name: rescue
          debug: {msg: r}
    - name: check again
      assert: {that: false}
      run_once: true
    - name: never
      debug: {msg: n}
- hosts: all
  gather_facts: false
  tasks:
    - name: next play
      debug: {msg: n}
`, runner.PlayOptions{})
	if err == nil {
		t.Fatal("the run succeeded")
	}
	if got, want := rec.results("h2"), []string{"task_ok rescue"}; !slices.Equal(got, want) {
		t.Errorf("h2 results = %q, want %q", got, want)
	}
	if r := recap.Hosts["h2"]; r.Failed != 0 || r.Rescued != 0 || r.OK != 1 {
		t.Errorf("h2 recap = %+v, want ok=1 only", r)
	}
	if r := recap.Hosts["h1"]; r.Failed != 1 || r.Rescued != 1 {
		t.Errorf("h1 recap = %+v, want failed=1 rescued=1", r)
	}
	if len(recap.Failures) != 1 {
		t.Errorf("failures = %+v, want h1's only", recap.Failures)
	}
}

// A play that --limit leaves without hosts is skipped, and the next play runs (Ansible's
// "skipping: no hosts matched").
func TestPlayWithNoHostsIsSkipped(t *testing.T) {
	_, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: controllers
  gather_facts: false
  tasks:
    - name: not here
      debug: {msg: n}
- hosts: all
  gather_facts: false
  tasks:
    - name: here
      debug: {msg: n}
`, runner.PlayOptions{Limit: "h3"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rec.results("h3"), []string{"task_ok here"}; !slices.Equal(got, want) {
		t.Errorf("h3 results = %q, want %q", got, want)
	}
}

// group_by adds the hosts to its groups in the play's order, whatever order they finish in, as
// Ansible does (groups['x'] shows it).
func TestGroupByKeepsThePlayOrder(t *testing.T) {
	for range 5 {
		recap, err, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h3:\n    h1:\n    h2:\n", `- hosts: all
  gather_facts: false
  tasks:
    - group_by: {key: everyone, parents: [top]}
    - set_fact:
        seen: "{{ groups['everyone'] + groups['top'] }}"
`, runner.PlayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := recap.Registered["h1"]["seen"], []any{"h3", "h1", "h2", "h3", "h1", "h2"}; !slices.Equal(got.([]any), want) {
			t.Fatalf("seen = %v, want %v", got, want)
		}
	}
}
