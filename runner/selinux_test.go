package runner_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// SELinux context arguments load; where the host has SELinux off they are left out, as
// Ansible ignores them, and where it is on the task fails (kupgrade does not set contexts).
func TestSELinuxArgumentsIgnoredWhereSELinuxIsOff(t *testing.T) {
	for _, on := range []bool{false, true} {
		rc := 1
		if on {
			rc = 0
		}
		d := &runnertest.FakeDialer{New: func(string) *runnertest.FakeConn {
			return &runnertest.FakeConn{Results: map[string]runnertest.Result{"/sys/fs/selinux/enforce": {RC: rc}}}
		}}
		_, _, rec := run(t, d, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: labelled
      file: {path: /tmp/x, state: touch, setype: net_conf_t, seuser: system_u}
      ignore_errors: true
`, runner.PlayOptions{})
		got := rec.results("h1")
		want := []string{"task_ok labelled"}
		if on {
			want = []string{"task_failed labelled"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("SELinux on=%v: results %q, want %q", on, got, want)
		}
		for _, c := range d.Conns("h1")[0].Calls() {
			if strings.Contains(c, "net_conf_t") {
				t.Errorf("SELinux on=%v: a command names the context: %s", on, c)
			}
		}
	}
}
