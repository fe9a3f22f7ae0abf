package runner_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/internal/testtree"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestRawAndScript: raw runs its command as written (no environment), script sends a local
// script from files/ and runs it with its arguments in chdir; both are changed, skip in check
// mode (script unless creates/removes), and follow creates/removes as Ansible's actions do.
func TestRawAndScript(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"inventory.yml":  "all:\n  hosts:\n    h1:\n",
		"files/hello.sh": "#!/bin/sh\necho \"$1 from $(pwd)\" > out\necho done\n",
		"site.yml": `- hosts: all
  gather_facts: false
  tasks:
    - raw: echo "[$GREETING]"
      environment: {GREETING: ignored}
      register: r
    - raw: echo no
      check_mode: true
      register: rc
    - script: hello.sh "big world"
      args: {chdir: "{{ out }}"}
      register: s
    - script: hello.sh again
      args: {chdir: "{{ out }}", creates: "{{ out }}/out"}
      register: skipped
    - script: hello.sh x
      args: {chdir: relative}
      ignore_errors: true
      register: bad
    - script: hello.sh "big world"; exit 3
      args: {chdir: "{{ out }}"}
      ignore_errors: true
      register: exits
`,
	})
	out := t.TempDir()
	i, err := inventory.Load(filepath.Join(dir, "inventory.yml"))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := playbooks.Load(filepath.Join(dir, "site.yml"))
	if err != nil {
		t.Fatal(err)
	}
	r := runner.New(&runnertest.LocalDialer{}, runner.Options{})
	defer r.Close()
	recap, err := r.Play(t.Context(), pb, i, runner.PlayOptions{ExtraVars: map[string]any{"out": out}})
	if err != nil {
		t.Fatal(err)
	}
	reg := func(name string) map[string]any { return recap.Registered["h1"][name].(map[string]any) }
	if r := reg("r"); r["stdout"] != "[]" || r["changed"] != true || r["rc"] != 0 {
		t.Errorf("raw = %v, want [] (no environment), changed", r)
	}
	if r := reg("rc"); r["skipped"] != true {
		t.Errorf("raw in check mode = %v, want skipped", r)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "out")); string(b) != "big world from "+out+"\n" {
		t.Errorf("the script wrote %q", b)
	}
	if s := reg("s"); s["stdout"] != "done" || s["changed"] != true {
		t.Errorf("script = %v", s)
	}
	if s := reg("skipped"); s["skipped"] != true || s["msg"] != out+"/out exists, matching creates option" {
		t.Errorf("script with creates = %v", s)
	}
	if s := reg("bad"); s["failed"] != true || s["msg"] != "chdir relative must be an absolute path for a Unix-aware remote node" {
		t.Errorf("script with a relative chdir = %v", s)
	}
	if s := reg("exits"); s["failed"] != true || s["rc"] != 3 || s["msg"] != "non-zero return code" {
		t.Errorf("a script line that exits 3 = %v", s)
	}
	if left, _ := filepath.Glob("/tmp/.kupgrade-*-hello.sh"); len(left) != 0 {
		t.Errorf("the script was left on the host: %v", left)
	}
}
