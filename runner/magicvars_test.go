package runner_test

import (
	"slices"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// group_names is Ansible's: the host's groups without "all" ("ungrouped" stays) (a playbook testing
// `group_names | length == 1` for "in one group" must see what Ansible shows).
func TestGroupNamesLeaveOutAll(t *testing.T) {
	recap, err, _ := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: all
  gather_facts: false
  tasks:
    - name: record
      set_fact:
        groups_seen: "{{ group_names }}"
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]any{"h1": {"controllers"}, "h3": {"ungrouped"}}
	for host, w := range want {
		got, _ := recap.Registered[host]["groups_seen"].([]any)
		if !slices.Equal(got, w) {
			t.Errorf("%s: group_names = %v, want %v", host, got, w)
		}
	}
}

// ansible_version is the ansible-core release kupgrade follows, with Ansible's keys: roles
// (k3s-ansible's prereq) assert on it before anything else.
func TestAnsibleVersion(t *testing.T) {
	recap, err, _ := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1
  gather_facts: false
  tasks:
    - assert: {that: ["ansible_version.full is version('2.14', '>=')", "ansible_version.major == 2"]}
    - set_fact: {v: "{{ ansible_version.string }} {{ ansible_version.minor }} {{ ansible_version.revision }}"}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := recap.Registered["h1"]["v"]; got != "2.14.18 14 18" {
		t.Errorf("ansible_version = %v, want 2.14.18 14 18", got)
	}
}
