package runner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// delegate_to: "{{ item }}" in a loop runs each item on that item's host (its own connection
// and user), and delegate_facts gives each item's facts to that item's host, as Ansible does.
func TestDelegateToPerLoopItem(t *testing.T) {
	t.Setenv("MARK", "")
	recap, err, _ := run(t, &markDialer{}, "all:\n  hosts:\n    h1:\n    h2: {ansible_user: root}\n    h3:\n", `- hosts: h1
  gather_facts: false
  remote_user: deploy
  tasks:
    - {shell: "echo $MARK", register: each, delegate_to: "{{ item }}", loop: "{{ groups['all'] }}"}
    - set_fact: {seen_by: "{{ inventory_hostname }}-{{ item }}"}
      delegate_to: "{{ item }}"
      delegate_facts: true
      loop: [h2, h3]
- hosts: all
  gather_facts: false
  tasks:
    - {shell: "echo {{ seen_by | default('none') }}", register: seen}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, it := range regField(t, recap, "h1", "each", "results").([]any) {
		ran = append(ran, fmt.Sprint(it.(map[string]any)["stdout"]))
	}
	if got, want := strings.Join(ran, " "), "h1@deploy h2@root h3@deploy"; got != want {
		t.Errorf("the items ran on %s, want %s", got, want)
	}
	for h, want := range map[string]string{"h1": "none", "h2": "h1-h2", "h3": "h1-h3"} {
		if got := regField(t, recap, h, "seen", "stdout"); got != want {
			t.Errorf("%s has seen_by %v, want %s", h, got, want)
		}
	}
}

// An item whose delegate_to host cannot be reached makes the task's host unreachable and ends
// the loop there; the items before it ran.
func TestDelegateToPerItemUnreachable(t *testing.T) {
	d := &runnertest.LocalDialer{Unreachable: map[string]error{"h3": fmt.Errorf("connection refused")}}
	recap, _, rec := run(t, d, "all:\n  hosts:\n    h1:\n    h2:\n    h3:\n", `- hosts: h1
  gather_facts: false
  tasks:
    - {name: each, command: "true", delegate_to: "{{ item }}", loop: [h2, h3, h1]}
    - {name: after, command: "true"}
`, runner.PlayOptions{})
	if rc := recap.Hosts["h1"]; rc.Unreachable != 1 || rc.OK != 0 {
		t.Errorf("h1 recap = %+v, want unreachable=1 ok=0", *rc)
	}
	if got := joined(rec.results("h1")); strings.Contains(got, "after") {
		t.Errorf("h1 ran on after its delegate was unreachable:\n%s", got)
	}
}
