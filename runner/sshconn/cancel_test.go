package sshconn_test

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// TestCancelLeavesNothingRunning proves the promise of Run: after cancellation, deadline or
// a lost connection, no process the command started is left on the host.
func TestCancelLeavesNothingRunning(t *testing.T) {
	// Each command records the pids of its sleeps, prints "started", then waits on them.
	tests := []struct {
		name   string
		cmd    string // %P is the pid file
		sudo   bool
		stdin  string
		ending string // "cancel", "deadline", "close" (Client.Close) or "drop" (the server's end)
	}{
		{name: "sleep", cmd: `sleep 1000 & echo $! >> %P; echo started; wait`, ending: "cancel"},
		{name: "deadline", cmd: `sleep 1000 & echo $! >> %P; echo started; wait`, ending: "deadline"},
		{name: "grandchildren", cmd: `sh -c 'sleep 1000 & echo $! >> %P; wait' & sleep 1000 & echo $! >> %P; sleep 0.2; echo started; wait`, ending: "cancel"},
		{name: "ignores TERM", cmd: `trap '' TERM; sleep 1000 & echo $! >> %P; echo started; wait`, ending: "cancel"},
		{name: "under sudo", cmd: `sudo -n sh -c 'sleep 1000 & echo $! >> %P; echo started; wait'`, sudo: true, ending: "cancel"},
		{name: "client closed", cmd: `sleep 1000 & echo $! >> %P; echo started; wait`, ending: "close"},
		{name: "connection dropped", cmd: `sleep 1000 & echo $! >> %P; echo started; wait`, ending: "drop"},
		{name: "stdin given", cmd: `cat >/dev/null; sleep 1000 & echo $! >> %P; echo started; wait`, stdin: "x\n", ending: "cancel"},
		{name: "exec form", cmd: `exec sh -c 'sleep 1000 & echo $! >> %P; echo started; wait'`, ending: "cancel"},
		{name: "exec form under sudo", cmd: `exec sudo -n sh -c 'sleep 1000 & echo $! >> %P; echo started; wait'`, sudo: true, ending: "cancel"},
		{name: "exec form, connection dropped", cmd: `exec sh -c 'sleep 1000 & echo $! >> %P; echo started; wait'`, ending: "drop"},
	}
	eachMode(t, func(t *testing.T, srv *sshtest.Server, mode sshconn.DialOption) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if tt.sudo {
					if _, err := exec.LookPath("sudo"); err != nil {
						t.Skip("sudo not installed")
					}
					if exec.Command("sudo", "-n", "true").Run() != nil {
						t.Skip("sudo -n needs a password here")
					}
				}
				c := dial(t, srv, mode)
				pidFile := filepath.Join(t.TempDir(), "pids")
				cmd := strings.ReplaceAll(tt.cmd, "%P", pidFile)
				ctx, cancel := context.WithCancelCause(t.Context())
				defer cancel(nil)
				out := &runnertest.Buffer{}
				done := make(chan error, 1)
				go func() {
					var stdin io.Reader
					if tt.stdin != "" {
						stdin = strings.NewReader(tt.stdin)
					}
					_, err := c.Run(ctx, cmd, stdin, out, out)
					done <- err
				}()
				waitFor(t, "the command to start", func() bool { return strings.Contains(out.String(), "started") })
				running := pids(t, pidFile)
				for _, pid := range running {
					if !alive(pid) {
						t.Fatalf("pid %d is not running before the cancel", pid)
					}
				}
				var want error
				switch tt.ending {
				case "cancel":
					cancel(nil)
					want = context.Canceled
				case "deadline":
					// What a task timeout looks like to Run, without a race against the clock.
					cancel(context.DeadlineExceeded)
					want = context.DeadlineExceeded
				case "close":
					c.Close()
				case "drop":
					srv.Drop()
				}
				err := <-done
				switch {
				case want != nil && !errors.Is(err, want):
					t.Fatalf("Run error = %v, want %v", err, want)
				case want == nil && !sshconn.IsClass(err, sshconn.Closed):
					t.Fatalf("Run error = %v, want class Closed", err)
				}
				for _, pid := range running {
					waitFor(t, "the remote sleep to be gone", func() bool { return !alive(pid) })
				}
			})
		}
	})
}
