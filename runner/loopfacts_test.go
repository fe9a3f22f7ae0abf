package runner_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestLoopItemsSetFacts: each item of a looped include_vars sets its variables, as Ansible
// applies every item's ansible_facts (roles include their OS's vars with with_first_found).
func TestLoopItemsSetFacts(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.yml": "from_a: 1\nboth: a\n", "b.yml": "from_b: 2\nboth: b\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	recap, err, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - include_vars: "{{ item }}"
      loop: ["`+filepath.Join(dir, "a.yml")+`", "`+filepath.Join(dir, "b.yml")+`"]
    - set_fact:
        seen: "{{ [from_a, from_b, both] }}"
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if seen, _ := recap.Registered["h1"]["seen"].([]any); len(seen) != 3 || seen[2] != "b" {
		t.Errorf("variables after the loop: %v", recap.Registered["h1"])
	}
}
