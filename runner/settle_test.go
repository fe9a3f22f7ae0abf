package runner_test

import (
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// A registered result has failed and changed as Ansible's executor leaves them: every module's
// result (and each loop item's) has both, a skipped task and a loop's summary have no failed
// (checked against ansible-playbook 2.14 with the same play).
func TestRegisteredResultsHaveFailedAsAnsible(t *testing.T) {
	recap, _, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - {ping: , register: pinged}
    - {debug: {var: inventory_hostname}, register: shown}
    - {command: "false", failed_when: false, register: judged}
    - {command: "echo {{ item }}", loop: [1, 2], register: looped}
    - {command: "true", when: false, register: skipped}
`, runner.PlayOptions{})
	reg := recap.Registered["h1"]
	for _, name := range []string{"pinged", "shown", "judged"} {
		r := reg[name].(map[string]any)
		if r["failed"] != false || r["changed"] == nil {
			t.Errorf("%s registered failed=%v changed=%v, want false and a value", name, r["failed"], r["changed"])
		}
	}
	looped := reg["looped"].(map[string]any)
	if item := looped["results"].([]any)[0].(map[string]any); item["failed"] != false {
		t.Errorf("a loop item registered failed=%v, want false", item["failed"])
	}
	for _, name := range []string{"looped", "skipped"} {
		if f, ok := reg[name].(map[string]any)["failed"]; ok {
			t.Errorf("%s registered failed=%v, which Ansible leaves out", name, f)
		}
	}
}
