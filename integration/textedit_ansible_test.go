//go:build integration

package integration_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// editCases are the cases of lineinfile, blockinfile and replace; ansible.json beside them is
// what ansible-core made of each, recorded by this test with KUPGRADE_UPDATE_GOLDEN=1. runner's
// TestTextEditMatchesAnsible runs kupgrade's modules on the same cases and compares with it.
const editCases = "../runner/testdata/textedit"

// TestTextEditMatchesAnsible runs every case with ansible-playbook (connection local, one play)
// and checks that Ansible still does what ansible.json records.
func TestTextEditMatchesAnsible(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("ansible-playbook"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ansible-playbook is missing: `make deps` installs ansible-core")
		}
		t.Skip("ansible-playbook is missing (Debian package ansible-core; `make deps` installs it)")
	}
	cases, err := runnertest.LoadEditCases(filepath.Join(editCases, "cases.yml"))
	if err != nil {
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
	pb := filepath.Join(t.TempDir(), "edit.yml")
	if err := os.WriteFile(pb, []byte("- hosts: localhost\n  gather_facts: false\n  tasks:\n"+tasks), 0o644); err != nil {
		t.Fatal(err)
	}
	first := ansibleResults(t, pb, len(cases))
	outcomes := make([]runnertest.EditOutcome, len(cases))
	for i, c := range cases {
		outcomes[i] = runnertest.Outcome(dir, c, first[i])
	}
	again := ansibleResults(t, pb, len(cases))
	got := map[string]runnertest.EditOutcome{}
	for i, c := range cases {
		outcomes[i].Again = again[i]["changed"] == true
		got[c.Name] = outcomes[i]
	}
	golden := filepath.Join(editCases, "ansible.json")
	if os.Getenv("KUPGRADE_UPDATE_GOLDEN") == "1" {
		data, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(golden, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]runnertest.EditOutcome
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !reflect.DeepEqual(got[c.Name], want[c.Name]) {
			g, _ := json.Marshal(got[c.Name])
			w, _ := json.Marshal(want[c.Name])
			t.Errorf("%s: Ansible now gives\n%s\nrecorded\n%s", c.Name, g, w)
		}
	}
	t.Logf("%d cases: ansible-core does what %s records", len(cases), golden)
}

// ansibleResults runs the playbook pb of n tasks on localhost and returns each task's result.
func ansibleResults(t *testing.T, pb string, n int) []map[string]any {
	t.Helper()
	cmd := exec.Command("ansible-playbook", "-i", "localhost,", "-c", "local", pb)
	cmd.Env = append(os.Environ(), "ANSIBLE_STDOUT_CALLBACK=json", "ANSIBLE_NOCOLOR=1", "ANSIBLE_LOCALHOST_WARNING=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ansible-playbook: %v\n%s\n%s", err, stderr.String(), out)
	}
	var report struct {
		Plays []struct {
			Tasks []struct {
				Hosts map[string]map[string]any `json:"hosts"`
			} `json:"tasks"`
		} `json:"plays"`
	}
	if err := json.Unmarshal(out, &report); err != nil || len(report.Plays) != 1 || len(report.Plays[0].Tasks) != n {
		t.Fatalf("ansible-playbook's JSON report (%v): %.2000s", err, out)
	}
	res := make([]map[string]any, n)
	for i, task := range report.Plays[0].Tasks {
		res[i] = task.Hosts["localhost"]
	}
	return res
}
