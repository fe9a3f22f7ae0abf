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
