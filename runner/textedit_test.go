package runner_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

// TestEditModulesWithBecome writes through sudo: the new content travels on the command's stdin
// through the become wrapper (as shell's stdin does, which a dash host used to drop).
func TestEditModulesWithBecome(t *testing.T) {
	env, log := fakeSudo(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "sshd_config")
	os.WriteFile(p, []byte("#PermitRootLogin yes\nPort 22\n"), 0o640)
	recap, err, _ := run(t, &runnertest.LocalDialer{Env: env}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  become: true
  tasks:
    - {lineinfile: {path: `+p+`, regexp: '^#?PermitRootLogin', line: PermitRootLogin no, backup: true}, register: li}
    - {blockinfile: {path: `+p+`, block: "Match User x\n  X11Forwarding no"}}
    - {replace: {path: `+p+`, regexp: '^Port \d+$', replace: Port 2222}}
    - {shell: cat, args: {stdin: fed}, register: fed}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "PermitRootLogin no\nPort 2222\n# BEGIN ANSIBLE MANAGED BLOCK\nMatch User x\n  X11Forwarding no\n# END ANSIBLE MANAGED BLOCK\n"
	if b, _ := os.ReadFile(p); string(b) != want {
		t.Errorf("file = %q, want %q", b, want)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v: an edited file keeps its mode", st.Mode())
	}
	bk, _ := recap.Registered["h1"]["li"].(map[string]any)["backup"].(string)
	if b, err := os.ReadFile(bk); err != nil || string(b) != "#PermitRootLogin yes\nPort 22\n" {
		t.Errorf("backup %q: %q, %v", bk, b, err)
	}
	if got := recap.Registered["h1"]["fed"].(map[string]any)["stdout"]; got != "fed" {
		t.Errorf("shell's stdin under become: %q", got)
	}
	if b, _ := os.ReadFile(log); strings.Count(string(b), "root") != 7 {
		t.Errorf("sudo calls: %q, want a read and a write per edit, and the shell, as root", b)
	}
}
