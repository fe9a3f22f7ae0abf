package runner_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// TestNewModulesOverSSH runs the edit, file, HTTP and archive modules through the SSH transport
// (the in-process server runs each command with /bin/sh): content on stdin, a second run ok.
func TestNewModulesOverSSH(t *testing.T) {
	s := sshtest.NewServer(t)
	web, _ := testServer(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "conf"), []byte("a=1\nc=1\n"), 0o644)
	pb := `- hosts: all
  gather_facts: false
  tasks:
    - {name: line, lineinfile: {path: ` + dir + `/conf, regexp: '^a=', line: a=2}}
    - {name: block, blockinfile: {path: ` + dir + `/conf, block: b=3}}
    - {name: replace, replace: {path: ` + dir + `/conf, regexp: '^(c)=1$', replace: '\1=9'}}
    - {name: link, file: {path: ` + dir + `/ln, src: conf, state: link}}
    - {name: download, get_url: {url: "` + web.URL + `/file", dest: ` + dir + `/dl}}
    - {name: api, uri: {url: "` + web.URL + `/api", method: PUT, body: "[1]", body_format: json, status_code: 201}}
`
	_, err, rec := run(t, sshDialer{s.Dialer()}, sshInventory(s), pb, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "task_changed line\ntask_changed block\ntask_changed replace\ntask_changed link\ntask_changed download\ntask_ok api"
	if got := joined(rec.results("n0")); got != want {
		t.Errorf("first run:\n%s\nwant\n%s", got, want)
	}
	wantFile := "a=2\nc=9\n# BEGIN ANSIBLE MANAGED BLOCK\nb=3\n# END ANSIBLE MANAGED BLOCK\n"
	if b, _ := os.ReadFile(filepath.Join(dir, "conf")); string(b) != wantFile {
		t.Errorf("conf = %q, want %q", b, wantFile)
	}
	_, err, rec = run(t, sshDialer{s.Dialer()}, sshInventory(s), pb, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want = "task_ok line\ntask_ok block\ntask_ok replace\ntask_ok link\ntask_ok download\ntask_ok api"
	if got := joined(rec.results("n0")); got != want {
		t.Errorf("second run:\n%s\nwant\n%s", got, want)
	}
}
