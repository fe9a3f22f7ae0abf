package playbooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/jinja"
)

// markKubectl is a kubectl that keeps one node's annotation and cordon in files of its folder:
// get node N -o jsonpath=... (the mark, .spec.unschedulable), annotate node N K=V | K-, cordon,
// uncordon.
const markKubectl = `#!/bin/sh
D=$(dirname "$0")
case "$*" in
*"get node"*annotations*) cat "$D/mark" 2>/dev/null ;;
*"get node"*unschedulable*) [ -f "$D/cordoned" ] && echo true ;;
*"annotate node"*cordoned-*) rm -f "$D/mark" ;;
*"annotate node"*) for a in "$@"; do case $a in kupgrade.io/cordoned=*) printf %s "${a#*=}" > "$D/mark" ;; esac; done ;;
*" cordon "*) touch "$D/cordoned"; echo "node/worker-0 cordoned" ;;
*" uncordon "*) rm -f "$D/cordoned"; echo "node/worker-0 uncordoned" ;;
esac
`

// runMarkTask runs the kubelet playbook's task named task for upgrade id with the fake kubectl
// in dir; it returns the output and exit status.
func runMarkTask(t *testing.T, dir, task, id string) (string, int) {
	t.Helper()
	vars := map[string]any{"to_version": "v1.31.1", "group_names": []any{"workers"}, "inventory_hostname": "worker-0",
		"groups": map[string]any{"controllers": []any{"controller-0"}}, VarUpgrade: id,
		VarCordonMark: "upgrade " + id + " by jump:1:aa with the database sqlite:jump:/db"}
	tk := shippedTask(t, "kubelet", task, vars)
	script, err := jinja.RenderString(tk.Args["_raw_params"].(string), vars)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "sh", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
	for k, v := range tk.Environment {
		r, err := jinja.RenderString(v, vars)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, k+"="+r)
	}
	out, _ := cmd.CombinedOutput()
	return string(out), cmd.ProcessState.ExitCode()
}

func markDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kubectl"), []byte(markKubectl), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The cordon mark names its owner; a second upgrade's cordon never takes over another's mark
// (it refuses, exit 3, which is not retried) and its uncordon leaves the node as it is; the
// owner's own retry and an older kupgrade's mark (the version alone) are this upgrade's.
func TestCordonMarkNamesItsOwner(t *testing.T) {
	dir := markDir(t)
	if out, rc := runMarkTask(t, dir, "Cordon the node", "u-1"); rc != 0 {
		t.Fatalf("first cordon: exit %d: %s", rc, out)
	}
	mark, _ := os.ReadFile(filepath.Join(dir, "mark"))
	if want := "upgrade u-1 by jump:1:aa with the database sqlite:jump:/db"; string(mark) != want {
		t.Errorf("mark %q, want %q", mark, want)
	}
	out, rc := runMarkTask(t, dir, "Cordon the node", "u-2")
	if rc != 3 || !strings.Contains(out, "cordoned by another upgrade (kupgrade.io/cordoned=upgrade u-1 by jump:1:aa") {
		t.Errorf("another upgrade's cordon: exit %d: %s, want exit 3 naming the mark's owner", rc, out)
	}
	if out, rc := runMarkTask(t, dir, "Uncordon the node", "u-2"); rc != 0 || !strings.Contains(out, "left as it is") {
		t.Errorf("another upgrade's uncordon: exit %d: %s, want the node left as it is", rc, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "cordoned")); err != nil {
		t.Error("another upgrade's uncordon lifted the cordon")
	}
	if out, rc := runMarkTask(t, dir, "Cordon the node", "u-1"); rc != 0 {
		t.Errorf("the owner's retry: exit %d: %s", rc, out)
	}
	if out, rc := runMarkTask(t, dir, "Uncordon the node", "u-1"); rc != 0 || !strings.Contains(out, "uncordoned") {
		t.Errorf("the owner's uncordon: exit %d: %s", rc, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "mark")); err == nil {
		t.Error("the owner's uncordon left the mark")
	}
	if err := os.WriteFile(filepath.Join(dir, "mark"), []byte("v1.31.1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, rc := runMarkTask(t, dir, "Cordon the node", "u-3"); rc != 0 {
		t.Errorf("an older kupgrade's mark: exit %d: %s, want it taken as this upgrade's", rc, out)
	}
}
