package runner_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

func TestFileLinksAndRecurse(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "target"), []byte("t"), 0o644)
	os.WriteFile(filepath.Join(dir, "other"), []byte("o"), 0o644)
	os.WriteFile(filepath.Join(dir, "plain"), []byte("p"), 0o644)
	os.MkdirAll(filepath.Join(dir, "tree", "sub"), 0o700)
	os.WriteFile(filepath.Join(dir, "tree", "sub", "f"), nil, 0o600)
	pb := `- hosts: all
  gather_facts: false
  tasks:
    - {name: link, file: {path: ` + dir + `/ln, src: target, state: link}, register: ln}
    - {name: relink, file: {path: ` + dir + `/ln, src: other, state: link}}
    - {name: refuse file, file: {path: ` + dir + `/plain, src: target, state: link}, ignore_errors: true, register: refuse}
    - {name: dangling, file: {path: ` + dir + `/dl, src: nowhere, state: link}, ignore_errors: true, register: dangling}
    - {name: dangling forced, file: {path: ` + dir + `/dl, src: nowhere, state: link, force: true}}
    - {name: hard, file: {path: ` + dir + `/hl, src: ` + dir + `/target, state: hard}}
    - {name: tree, file: {path: ` + dir + `/tree, state: directory, mode: "0755", recurse: true}}
    - {name: attrs of a folder, file: {path: ` + dir + `/tree, mode: "0750"}, register: folder}
    - {name: not a file, file: {path: ` + dir + `/tree, state: file}, ignore_errors: true}
    - {name: gone, file: {path: ` + dir + `/tree, state: absent}}
`
	recap, _, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", pb, runner.PlayOptions{})
	want := "task_changed link\ntask_changed relink\ntask_failed refuse file\ntask_failed dangling\ntask_changed dangling forced\ntask_changed hard\ntask_changed tree\ntask_changed attrs of a folder\ntask_failed not a file\ntask_changed gone"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("first run:\n%s\nwant\n%s", got, want)
	}
	if st := reg(t, recap, "h1", "folder")["state"]; st != "directory" {
		t.Errorf("a folder without state: state %v", st)
	}
	if e, _ := rec.find("h1", "not a file"); e.Msg != "file ("+dir+"/tree) is directory, cannot continue" {
		t.Errorf("state file on a folder: %q", e.Msg)
	}
	if e, _ := rec.find("h1", "refuse file"); e.Msg != "refusing to convert from file to symlink for "+dir+"/plain" {
		t.Errorf("refuse: %q", e.Msg)
	}
	if e, _ := rec.find("h1", "dangling"); e.Msg != `src file does not exist, use "force=yes" if you really want to create the link: `+dir+"/nowhere" {
		t.Errorf("dangling: %q", e.Msg)
	}
	if l, err := os.Readlink(filepath.Join(dir, "ln")); l != "other" {
		t.Errorf("ln -> %q, %v", l, err)
	}
	a, _ := os.Stat(filepath.Join(dir, "hl"))
	b, _ := os.Stat(filepath.Join(dir, "target"))
	if !os.SameFile(a, b) {
		t.Error("hl is not a hard link to target")
	}
	// again, with the tree recreated as the first run left it before removing it
	os.MkdirAll(filepath.Join(dir, "tree", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "tree", "sub", "f"), nil, 0o755)
	os.Chmod(filepath.Join(dir, "tree", "sub", "f"), 0o755)
	pb2 := `- hosts: all
  gather_facts: false
  tasks:
    - {name: relink, file: {path: ` + dir + `/ln, src: other, state: link}}
    - {name: hard, file: {path: ` + dir + `/hl, src: ` + dir + `/target, state: hard}}
    - {name: tree, file: {path: ` + dir + `/tree, state: directory, mode: "0755", recurse: true}}
    - {name: tree check, file: {path: ` + dir + `/tree, state: directory, mode: "0700", recurse: true}, check_mode: true}
`
	_, _, rec = run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", pb2, runner.PlayOptions{})
	want = "task_ok relink\ntask_ok hard\ntask_ok tree\ntask_changed tree check"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("second run:\n%s\nwant\n%s", got, want)
	}
	if st, _ := os.Stat(filepath.Join(dir, "tree", "sub", "f")); st.Mode().Perm() != 0o755 {
		t.Errorf("check mode changed a mode: %v", st.Mode())
	}
}
