package runner_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestTemplateAnsibleVars: a template sees the variables Ansible's template adds for it, over
// the host's own (Trellis's templates begin with "# {{ ansible_managed }}"): ansible_managed is
// "Ansible managed" even where a play sets its own, and template_path, template_fullpath and
// template_destpath name the files.
func TestTemplateAnsibleVars(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "templates", "conf.j2")
	os.MkdirAll(filepath.Dir(src), 0o755)
	if err := os.WriteFile(src, []byte("# {{ ansible_managed }}\n{{ template_path }} {{ template_fullpath }} {{ template_destpath }}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pb := `- hosts: all
  gather_facts: false
  vars: {ansible_managed: mine}
  tasks:
    - template: {src: ` + src + `, dest: ` + dir + `/conf}
`
	if _, err, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", pb, runner.PlayOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "# Ansible managed\n" + src + " " + src + " " + dir + "/conf\n"
	if b, _ := os.ReadFile(filepath.Join(dir, "conf")); string(b) != want {
		t.Errorf("conf = %q, want %q", b, want)
	}
}
