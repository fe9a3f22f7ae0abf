package runner_test

import (
	"reflect"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// Registered results of skipped tasks and loops have ansible-core 2.14's keys, which
// conditions read: a loop of skipped items says "All items skipped", a skipped task has no
// false_condition (2.15 added it), and a loop result has no failed key unless an item failed.
func TestRegisteredSkippedResultsAsAnsible214(t *testing.T) {
	recap, err, _ := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1
  gather_facts: false
  tasks:
    - command: echo x
      when: false
      register: sk
    - command: echo x
      loop: [1, 2]
      when: item == 5
      register: lsk
    - command: "echo {{ item }}"
      loop: [a]
      register: lr
    - set_fact:
        got: "{{ [sk.false_condition is defined, lsk.msg, lsk is skipped, lr.failed is defined, lr is skipped, lr is changed] }}"
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := recap.Registered["h1"]["got"]
	want := []any{false, "All items skipped", true, false, false, true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got = %#v, want %#v", got, want)
	}
}

// hostvars of a host outside the play have the magic variables Ansible gives every host.
func TestHostvarsOfHostsOutsideThePlay(t *testing.T) {
	recap, err, _ := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1
  gather_facts: false
  tasks:
    - set_fact:
        got: "{{ [hostvars.h2.inventory_hostname, hostvars.h2.group_names, hostvars.h2.playbook_dir is defined] }}"
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"h2", []any{"controllers"}, true}
	if got := recap.Registered["h1"]["got"]; !reflect.DeepEqual(got, want) {
		t.Errorf("got = %#v, want %#v", got, want)
	}
}

// The play's magic variables as ansible-playbook 2.14 gives them (recorded from it with
// --limit h1 and with --tags x --skip-tags y).
func TestPlayMagicVariables(t *testing.T) {
	play := `- hosts: controllers
  name: the play
  gather_facts: false
  tasks:
    - set_fact:
        got: "{{ [ansible_play_hosts_all, ansible_run_tags, ansible_skip_tags, ansible_limit | default('U'), ansible_diff_mode, ansible_play_name, ansible_verbosity] }}"
      tags: [x]
`
	for _, c := range []struct {
		po   runner.PlayOptions
		want []any
	}{
		{runner.PlayOptions{Limit: "h1"}, []any{[]any{"h1"}, []any{"all"}, []any{}, "h1", false, "the play", 0}},
		{runner.PlayOptions{Tags: []string{"x"}, SkipTags: []string{"y"}}, []any{[]any{"h1", "h2"}, []any{"x"}, []any{"y"}, "U", false, "the play", 0}},
	} {
		recap, err, _ := run(t, &runnertest.LocalDialer{}, threeHosts, play, c.po)
		if err != nil {
			t.Fatal(err)
		}
		if got := recap.Registered["h1"]["got"]; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: got %#v, want %#v", c.po, got, c.want)
		}
	}
}
