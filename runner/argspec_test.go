package runner_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// Arguments of another type are converted as Ansible's argument spec converts them when the
// task runs, and what it cannot convert fails the task (not the load); an owner or group given
// as a number is a uid or gid, as in Ansible.
func TestModuleArgumentsConvertedWhenTheTaskRuns(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	_, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1
  gather_facts: false
  tasks:
    - name: dict as a string
      lineinfile: {path: `+f+`, line: {a: 1}, create: yes}
    - name: bool as a string
      copy: {dest: `+f+`.2, content: yes}
    - name: numeric owner
      file: {path: `+f+`, owner: `+strconv.Itoa(os.Getuid())+`, group: `+strconv.Itoa(os.Getgid())+`}
    - name: not a boolean
      file: {path: `+f+`, recurse: maybe}
      ignore_errors: true
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"task_changed dict as a string", "task_changed bool as a string", "task_ok numeric owner", "task_failed not a boolean"}
	if got := rec.results("h1"); !slices.Equal(got, want) {
		t.Errorf("h1 results = %q, want %q", got, want)
	}
	for path, want := range map[string]string{f: "{'a': 1}\n", f + ".2": "True"} {
		if b, _ := os.ReadFile(path); string(b) != want {
			t.Errorf("%s = %q, want %q", path, b, want)
		}
	}
}
