package runner_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestTextEditMatchesAnsible runs lineinfile, blockinfile and replace on every case of
// testdata/textedit and compares the file written, its mode and the result with what
// ansible-core did (testdata/textedit/ansible.json, recorded by integration's test of the same
// name), then runs them again: a second run changes what it changes in Ansible (nothing, mostly).
func TestTextEditMatchesAnsible(t *testing.T) {
	cases, err := runnertest.LoadEditCases(filepath.Join("testdata", "textedit", "cases.yml"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "textedit", "ansible.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]runnertest.EditOutcome
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := runnertest.Prepare(dir, cases); err != nil {
		t.Fatal(err)
	}
	tasks, err := runnertest.Tasks(dir, cases)
	if err != nil {
		t.Fatal(err)
	}
	pb := "- hosts: all\n  gather_facts: false\n  tasks:\n" + tasks
	first, _, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", pb, runner.PlayOptions{})
	outcomes := make([]runnertest.EditOutcome, len(cases))
	for i, c := range cases {
		res, _ := first.Registered["h1"]["r"+fmtInt(i)].(map[string]any)
		outcomes[i] = runnertest.Outcome(dir, c, res)
	}
	again, _, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", pb, runner.PlayOptions{})
	matched := 0
	for i, c := range cases {
		res, _ := again.Registered["h1"]["r"+fmtInt(i)].(map[string]any)
		got := outcomes[i]
		got.Again = res["changed"] == true
		if w, ok := want[c.Name]; !ok {
			t.Errorf("%s: not in ansible.json: run integration's TestTextEditMatchesAnsible with KUPGRADE_UPDATE_GOLDEN=1", c.Name)
		} else if !reflect.DeepEqual(got, w) {
			g, _ := json.Marshal(got)
			wj, _ := json.Marshal(w)
			t.Errorf("%s: kupgrade\n%s\nAnsible\n%s", c.Name, g, wj)
		} else {
			matched++
		}
	}
	t.Logf("%d of %d cases match ansible-core", matched, len(cases))
}
