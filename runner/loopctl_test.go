package runner_test

import (
	"reflect"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// loop_control as ansible-core 2.14 has it: loop_var, index_var, extended (ansible_loop) and
// extended_allitems: false, which leaves allitems out; and set_fact in a loop sees the facts of
// the items before (the list grows), as in Ansible (outputs checked with ansible-playbook).
func TestLoopControlExtendedAllItems(t *testing.T) {
	recap, err, _ := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1
  gather_facts: false
  tasks:
    - set_fact:
        seen: "{{ seen | default([]) + [thing ~ idx ~ ansible_loop.revindex ~ (ansible_loop.allitems | default('-') | length)] }}"
      loop: [a, b]
      loop_control: {loop_var: thing, index_var: idx, extended: true, extended_allitems: false}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := recap.Registered["h1"]["seen"], []any{"a021", "b111"}; !reflect.DeepEqual(got, want) {
		t.Errorf("seen = %#v, want %#v", got, want)
	}
}
