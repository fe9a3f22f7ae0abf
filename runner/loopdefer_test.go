package runner_test

import (
	"errors"
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

// TestLoopFailureNamesTheItem: a failed loop's evidence is its first failed item's, naming the
// item, with that item's exit status and stderr: "One or more items failed" alone says neither
// which item nor why.
func TestLoopFailureNamesTheItem(t *testing.T) {
	_, err, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: pull
      shell: "test {{ v }} != v1.31.2 || { echo 'image v1.31.2: not found' >&2; exit 3; }"
      loop: [v1.30.9, v1.31.2]
      loop_control: {loop_var: v}
`, runner.PlayOptions{})
	var he *runner.HostError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v, want a host's failure", err)
	}
	r := he.TaskResult()
	if r.Msg != "(item=v1.31.2) non-zero return code" || !r.NonZero() || *r.RC != 3 || !strings.Contains(r.Stderr, "image v1.31.2: not found") {
		t.Errorf("the loop's failure reads msg %q, rc %v, stderr %q; want the item v1.31.2's", r.Msg, r.RC, r.Stderr)
	}
	if !strings.Contains(he.Error(), "image v1.31.2: not found") {
		t.Errorf("the host's error %q does not say why", he.Error())
	}
}

// TestLoopTextReportSaysNoMoreThanTheLine: a loop whose items all passed shows its line, not
// Ansible's "All items completed" as if a module had said something.
func TestLoopTextReportSaysNoMoreThanTheLine(t *testing.T) {
	i, p := setup(t, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: pull
      command: "true {{ item }}"
      loop: [a, b]
`)
	var out strings.Builder
	r := runner.New(&runnertest.LocalDialer{}, runner.Options{Reporter: runner.NewTextReporter(&out, false)})
	t.Cleanup(func() { r.Close() })
	if _, err := r.Play(t.Context(), p, i, runner.PlayOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "changed: [h1] pull") || strings.Contains(out.String(), "All items completed") {
		t.Errorf("the report:\n%s\nwant the task's line and no msg", out.String())
	}
}
