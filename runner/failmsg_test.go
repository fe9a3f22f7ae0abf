package runner_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestFailAndAssertListMsg: fail's msg and assert's fail_msg may be lists, as k3s-ansible
// writes them; the playbook loads and the result's msg is the list, as Ansible's.
func TestFailAndAssertListMsg(t *testing.T) {
	recap, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  vars: {v: "1.8.4"}
  tasks:
    - name: warn
      fail:
        msg:
          - "Warning: Iptables {{ v }} found."
          - "Add '--prefer-bundled-bin'."
      ignore_errors: true
      register: f
    - name: check
      assert: {that: "v is version('2', '>=')", fail_msg: ["too old: {{ v }}", "upgrade"]}
      ignore_errors: true
      register: a
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]any{
		"f": {"Warning: Iptables 1.8.4 found.", "Add '--prefer-bundled-bin'."},
		"a": {"too old: 1.8.4", "upgrade"},
	} {
		if got := reg(t, recap, "h1", name)["msg"]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s.msg = %#v, want %#v", name, got, want)
		}
	}
	e, _ := rec.find("h1", "warn")
	var shown []any
	if json.Unmarshal(e.MsgJSON, &shown) != nil || len(shown) != 2 {
		t.Errorf("the event's msg is %s, want the list (its JSON)", e.MsgJSON)
	}
}
