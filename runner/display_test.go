package runner_test

import (
	"encoding/json"
	"testing"

	"github.com/kupgrade/kupgrade/internal/testtree"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestDebugShowsValuesAsAnsible: debug of a list, a mapping, a number or a variable shows the
// value as Ansible's callback does (JSON, not Go's [a b] or map[a:b]), and the JSON form of the
// event carries the value itself.
func TestDebugShowsValuesAsAnsible(t *testing.T) {
	_, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  vars:
    d: {k1: v1, k2: [1, 2.0, null, true]}
  tasks:
    - {name: keys, debug: {msg: "{{ d.keys() | list }}"}}
    - {name: dict, debug: {msg: "{{ d }}"}}
    - {name: num, debug: {msg: "{{ 6 * 7 }}"}}
    - {name: var, debug: {var: d.k2}}
    - {name: text, debug: {msg: "keys {{ d.keys() | list }}"}}
    - {name: empty, debug: {msg: "{{ [] }}"}}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for task, want := range map[string][2]string{
		"keys":  {"[\n    \"k1\",\n    \"k2\"\n]", `["k1","k2"]`},
		"dict":  {"{\n    \"k1\": \"v1\",\n    \"k2\": [\n        1,\n        2.0,\n        null,\n        true\n    ]\n}", `{"k1":"v1","k2":[1,2.0,null,true]}`},
		"num":   {"42", `"42"`},
		"var":   {"[\n    1,\n    2.0,\n    null,\n    true\n]", `[1,2.0,null,true]`},
		"text":  {"keys ['k1', 'k2']", `"keys ['k1', 'k2']"`},
		"empty": {"[]", `[]`},
	} {
		e, _ := rec.find("h1", task)
		if e.Msg != want[0] {
			t.Errorf("%s: shows %q, want %q", task, e.Msg, want[0])
		}
		var j struct{ Msg json.RawMessage }
		b, _ := json.Marshal(e)
		if err := json.Unmarshal(b, &j); err != nil || string(j.Msg) != want[1] {
			t.Errorf("%s: JSON msg %s (%v), want %s", task, j.Msg, err, want[1])
		}
	}
}

// TestDebugVarUndefined: debug var of an undefined variable is ok and says so, as Ansible
// does; an include_tasks loops with any with_* loop.
func TestDebugVarUndefined(t *testing.T) {
	dir := testtree.Write(t, map[string]string{"inventory.yml": "all:\n  hosts:\n    h1:\n",
		"inc.yml": "- debug: msg=included\n",
		"site.yml": `- hosts: all
  gather_facts: false
  tasks:
    - {name: undefined, debug: {var: nope.x}}
    - {name: inc, include_tasks: inc.yml, with_sequence: count=2}
`})
	recap, err, rec := playTree(t, &runnertest.LocalDialer{}, dir, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := rec.find("h1", "undefined"); e.Event != runner.EventTaskOK || e.Msg != "VARIABLE IS NOT DEFINED!" {
		t.Errorf("debug var of an undefined variable: %s %q", e.Event, e.Msg)
	}
	if r := recap.Hosts["h1"]; r.OK != 5 || r.Failed != 0 {
		t.Errorf("recap %+v, want ok=5 as ansible-playbook (debug, one include per item, the two included debugs)", *r)
	}
}
