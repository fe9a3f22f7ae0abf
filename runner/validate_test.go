package runner_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestTemplateValidate: template and copy run validate on the new content before it replaces
// the file, as Ansible's copy does: a content the command accepts is written, one it refuses
// leaves the file as it was and fails with Ansible's "failed to validate"; check mode runs no
// validation (Ansible's copy validates only when it writes).
func TestTemplateValidate(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "conf.j2"), []byte("Port {{ port }}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"good", "bad", "checked"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pb := `- hosts: all
  gather_facts: false
  vars: {port: 22}
  tasks:
    - name: good
      template: {src: ` + dir + `/conf.j2, dest: ` + dir + `/good, validate: "grep -q '^Port 22$' %s"}
    - name: bad
      copy: {content: "Port 2222\n", dest: ` + dir + `/bad, validate: "grep '^Port 22$' %s"}
      ignore_errors: true
    - name: checked
      template: {src: ` + dir + `/conf.j2, dest: ` + dir + `/checked, validate: "false %s"}
      check_mode: true
`
	recap, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", pb, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{"good": "Port 22\n", "bad": "old\n", "checked": "old\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != want {
			t.Errorf("%s = %q, want %q", f, b, want)
		}
	}
	bad, _ := rec.find("h1", "bad")
	if bad.Msg != "failed to validate" || bad.Data["exit_status"] != 1 {
		t.Errorf("bad: msg %q, exit_status %v; want Ansible's failed to validate, 1", bad.Msg, bad.Data["exit_status"])
	}
	if h := recap.Hosts["h1"]; h.Changed != 2 || h.Ignored != 1 {
		t.Errorf("recap = %+v, want good and checked changed, bad ignored", *h)
	}
}
