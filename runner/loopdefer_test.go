package runner_test

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestLoopUndefinedWaitsForWhen: a loop over an undefined variable fails only once the task's
// when holds, as Ansible's task executor keeps that error until then (k3s-ansible's prereq
// loops over extra_manifests inside a block for when it is defined); a with_first_found term
// naming an undefined variable is left out, skip and all, as ansible-core 2.14 does, so the
// lookup finds nothing and fails even there.
func TestLoopUndefinedWaitsForWhen(t *testing.T) {
	recap, _, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: block skipped
      when: extra_manifests is defined
      block:
        - name: copy manifests
          debug: {msg: "{{ item }}"}
          loop: "{{ extra_manifests }}"
    - name: own when
      debug: {msg: "{{ item }}"}
      loop: "{{ nope }}"
      when: false
    - name: first found
      debug: {msg: "{{ item }}"}
      with_first_found:
        - files: ["{{ airgap_dir }}/k3s"]
          skip: true
      when: airgap_dir is defined
      ignore_errors: true
    - name: runs
      debug: {msg: "{{ item }}"}
      loop: "{{ nope }}"
      ignore_errors: true
      register: r
`, runner.PlayOptions{})
	want := "task_skipped copy manifests\ntask_skipped own when\ntask_failed first found\ntask_failed runs"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("results:\n%s\nwant\n%s", got, want)
	}
	if m, _ := reg(t, recap, "h1", "r")["msg"].(string); !strings.Contains(m, "'nope' is undefined") {
		t.Errorf("the loop's error = %q, want it to name nope", m)
	}
}
