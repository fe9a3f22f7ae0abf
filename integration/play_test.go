//go:build integration

package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestPlayLeavesNothingRunningUnderBecome: a become task whose script starts more processes is
// stopped whole, on the real sudo of the lab nodes (use_pty, a login user that cannot signal
// root's processes), whether the task times out, kupgrade gets Ctrl-C or kupgrade is killed.
func TestPlayLeavesNothingRunningUnderBecome(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 1})
	node := u.lab.Node("controller-0")
	// Each case sleeps for its own number of seconds, so pgrep tells the cases apart; "^sleep"
	// leaves out the shells whose command lines hold the script.
	playbook := func(secs, timeout string) string {
		p := filepath.Join(t.TempDir(), "play.yml")
		task := `    - name: Sleepers
      shell: sleep ` + secs + ` & sleep ` + secs + `; echo done
      become: true
`
		if timeout != "" {
			task += "      timeout: " + timeout + "\n"
		}
		if err := os.WriteFile(p, []byte("- hosts: all\n  gather_facts: false\n  tasks:\n"+task), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	t.Run("task timeout", func(t *testing.T) {
		out := u.k.wantExit(t, 1, "play", playbook("1001", "2"))
		if ps, ok := pgrep(t, node, "^sleep 1001"); ok {
			t.Errorf("still running right after the play:\n%s\n%s", ps, out)
		}
	})
	for _, tt := range []struct {
		name, secs string
		sig        syscall.Signal
		exit       int
	}{
		{"ctrl-c", "1002", syscall.SIGINT, 130},
		{"kupgrade killed", "1003", syscall.SIGKILL, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, out := u.k.cmd(t.Context(), "play", playbook(tt.secs, ""))
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
				if ps, ok := pgrep(t, node, "^sleep "+tt.secs); ok && len(strings.Fields(ps)) == 2*3 { // "PID sleep SECS" twice
					break
				}
				if time.Now().After(deadline) {
					c.Process.Kill()
					c.Wait()
					t.Fatalf("the sleepers never started:\n%s", out)
				}
			}
			if err := c.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			c.Wait() //nolint:errcheck // the exit status is checked below
			if code := c.ProcessState.ExitCode(); code != tt.exit {
				t.Errorf("kupgrade exited %d, want %d:\n%s", code, tt.exit, out)
			}
			requireNoProcess(t, node, "^sleep "+tt.secs)
		})
	}
}
