package sshconn_test

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// TestAgentRunsCommandsInOneProcess: with an agent, every command of a connection is started by
// the same remote process (one session, one shell), under bash when the host has it; without
// one, each command has a session and a shell of its own.
func TestAgentRunsCommandsInOneProcess(t *testing.T) {
	wantShell := map[string]string{"bash agent": "bash", "sh agent": "sh"}
	for _, mode := range sshconn.AgentModes {
		t.Run(mode, func(t *testing.T) {
			srv := sshtest.NewServer(t)
			c := dial(t, srv, sshconn.AgentMode(t, mode))
			parents := map[string]bool{}
			for _, cmd := range []string{`echo "$PPID $(cat /proc/$PPID/comm)"`, "exec sh -c 'echo \"$PPID $(cat /proc/$PPID/comm)\"'"} {
				for range 5 {
					var out bytes.Buffer
					if exit, err := c.Run(t.Context(), cmd, nil, &out, nil); err != nil || exit != 0 {
						t.Fatalf("Run = %d, %v", exit, err)
					}
					parent := strings.TrimSpace(out.String())
					parents[parent] = true
					if _, comm, _ := strings.Cut(parent, " "); wantShell[mode] != "" && comm != wantShell[mode] {
						t.Errorf("command started by %q, want the agent's %s", comm, wantShell[mode])
					}
				}
			}
			sessions := srv.Sessions()
			if wantShell[mode] != "" {
				if len(parents) != 1 || sessions != 1 {
					t.Errorf("10 commands: %d parents %v over %d sessions, want one agent", len(parents), parents, sessions)
				}
			} else if len(parents) != 10 || sessions != 11 {
				// The first session is the agent that did not start.
				t.Errorf("10 commands: %d parents over %d sessions, want 10 over 11", len(parents), sessions)
			}
		})
	}
}

// TestAgentConcurrentRuns: commands run at once on one connection each get their own output and
// status, and the connection keeps at most a few agents once they are done.
func TestAgentConcurrentRuns(t *testing.T) {
	eachMode(t, func(t *testing.T, srv *sshtest.Server, mode sshconn.DialOption) {
		c := dial(t, srv, mode)
		var wg sync.WaitGroup
		for g := range 6 {
			wg.Go(func() {
				for i := range 5 {
					var out, errOut bytes.Buffer
					cmd := fmt.Sprintf("printf 'out %d.%d'; printf 'err %d.%d' >&2; exit %d", g, i, g, i, g+i)
					exit, err := c.Run(context.Background(), cmd, nil, &out, &errOut)
					if err != nil || exit != g+i {
						t.Errorf("%d.%d: Run = %d, %v", g, i, exit, err)
					}
					if want := fmt.Sprintf("out %d.%d", g, i); out.String() != want {
						t.Errorf("stdout %q, want %q", out.String(), want)
					}
					if want := fmt.Sprintf("err %d.%d", g, i); errOut.String() != want {
						t.Errorf("stderr %q, want %q", errOut.String(), want)
					}
				}
			})
		}
		wg.Wait()
	})
}

// TestAgentAfterCancel: a cancelled command does not disturb the next one on the connection.
func TestAgentAfterCancel(t *testing.T) {
	eachMode(t, func(t *testing.T, srv *sshtest.Server, mode sshconn.DialOption) {
		c := dial(t, srv, mode)
		ctx, cancel := context.WithCancel(t.Context())
		out := &runnertest.Buffer{}
		done := make(chan error, 1)
		go func() {
			_, err := c.Run(ctx, "echo started; echo noise >&2; exec sleep 1000", nil, out, out)
			done <- err
		}()
		waitFor(t, "the command to start", func() bool { return strings.Contains(out.String(), "started") })
		cancel()
		if err := <-done; err == nil {
			t.Fatal("cancelled Run returned no error")
		}
		for i := range 3 {
			var so, se bytes.Buffer
			exit, err := c.Run(t.Context(), fmt.Sprintf("echo next %d; echo e >&2", i), nil, &so, &se)
			if err != nil || exit != 0 || so.String() != fmt.Sprintf("next %d\n", i) || se.String() != "e\n" {
				t.Fatalf("Run after the cancel = %d, %v, stdout %q, stderr %q", exit, err, so.String(), se.String())
			}
		}
	})
}

// TestAgentLargeOutput: megabytes on both streams at once arrive whole and in order.
func TestAgentLargeOutput(t *testing.T) {
	eachMode(t, func(t *testing.T, srv *sshtest.Server, mode sshconn.DialOption) {
		c := dial(t, srv, mode)
		var so, se bytes.Buffer
		cmd := `i=0; while [ $i -lt 20000 ]; do echo "line $i of the output"; echo "line $i of errors" >&2; i=$((i+1)); done`
		if exit, err := c.Run(t.Context(), cmd, nil, &so, &se); err != nil || exit != 0 {
			t.Fatalf("Run = %d, %v", exit, err)
		}
		lines := strings.Split(strings.TrimSuffix(so.String(), "\n"), "\n")
		errLines := strings.Split(strings.TrimSuffix(se.String(), "\n"), "\n")
		if len(lines) != 20000 || len(errLines) != 20000 {
			t.Fatalf("got %d and %d lines, want 20000 each", len(lines), len(errLines))
		}
		for i := range lines {
			if lines[i] != fmt.Sprintf("line %d of the output", i) || errLines[i] != fmt.Sprintf("line %d of errors", i) {
				t.Fatalf("line %d: %q / %q", i, lines[i], errLines[i])
			}
		}
	})
}

// TestAgentBackgroundOutput: what a command leaves running in the background and writing never
// reaches the output of the commands after it.
func TestAgentBackgroundOutput(t *testing.T) {
	eachMode(t, func(t *testing.T, srv *sshtest.Server, mode sshconn.DialOption) {
		c := dial(t, srv, mode)
		var first bytes.Buffer
		if exit, err := c.Run(t.Context(), "(sleep 0.3; echo late; echo late >&2) & echo now", nil, &first, nil); err != nil || exit != 0 {
			t.Fatalf("Run = %d, %v", exit, err)
		}
		if !strings.HasPrefix(first.String(), "now\n") {
			t.Errorf("first command's output %q, want it to start with now", first.String())
		}
		var so, se bytes.Buffer
		if exit, err := c.Run(t.Context(), "sleep 0.6; echo next", nil, &so, &se); err != nil || exit != 0 {
			t.Fatalf("Run = %d, %v", exit, err)
		}
		if so.String() != "next\n" || se.String() != "" {
			t.Errorf("next command's output %q and %q, want only its own", so.String(), se.String())
		}
	})
}

// TestAgentKilledWhileIdle: an agent killed on the host between two commands costs nothing but
// a new agent; the next command runs as if nothing happened.
func TestAgentKilledWhileIdle(t *testing.T) {
	for _, k := range kinds {
		for _, mode := range []string{"bash agent", "sh agent"} {
			t.Run(k.name+"/"+mode, func(t *testing.T) {
				c := dial(t, k.start(t), sshconn.AgentMode(t, mode))
				var out bytes.Buffer
				if exit, err := c.Run(t.Context(), "echo $PPID", nil, &out, nil); err != nil || exit != 0 {
					t.Fatalf("Run = %d, %v", exit, err)
				}
				agentPid, err := strconv.Atoi(strings.TrimSpace(out.String()))
				if err != nil {
					t.Fatalf("parent pid %q: %v", out.String(), err)
				}
				if err := syscall.Kill(agentPid, syscall.SIGKILL); err != nil {
					t.Fatalf("kill the agent: %v", err)
				}
				waitFor(t, "the client to see the agent's session end", func() bool { return c.LiveIdleAgents() == 0 })
				out.Reset()
				if exit, err := c.Run(t.Context(), "echo again", nil, &out, nil); err != nil || exit != 0 || out.String() != "again\n" {
					t.Fatalf("Run after the kill = %d, %v, %q", exit, err, out.String())
				}
			})
		}
	}
}

// TestAgentAfterGreeting: a login shell that prints a greeting still gets an agent, and the
// greeting reaches no command's output; one that prints too much gets a session per command, and
// the greeting then in every output.
func TestAgentAfterGreeting(t *testing.T) {
	for _, tt := range []struct {
		name, greeting string
		agent          bool
	}{
		{"short", "Welcome to node-1\nAuthorized use only\n\n", true},
		{"no final newline", "Welcome", true},
		{"too long", strings.Repeat("all work and no play\n", 1000), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := sshtest.NewServer(t)
			c := dial(t, srv, sshconn.GreetBeforeAgent(tt.greeting))
			for i := range 3 {
				var out bytes.Buffer
				if exit, err := c.Run(t.Context(), fmt.Sprintf("echo %d", i), nil, &out, nil); err != nil || exit != 0 {
					t.Fatalf("Run = %d, %v", exit, err)
				}
				// Without an agent every session gets the greeting, as before.
				if want := fmt.Sprintf("%d\n", i); out.String() != want && (tt.agent || !strings.HasSuffix(out.String(), want)) {
					t.Fatalf("output %q, want %q", out.String(), want)
				}
			}
			if got := srv.Sessions() == 1; got != tt.agent {
				t.Errorf("%d sessions for 3 commands; want an agent: %v", srv.Sessions(), tt.agent)
			}
		})
	}
}

// TestAgentStalled: a login shell that never gets to start the agent costs the first command the
// banner's wait, then every command runs in a session of its own.
func TestAgentStalled(t *testing.T) {
	srv := sshtest.NewServer(t)
	c := dial(t, srv, sshconn.StallBeforeAgent(200*time.Millisecond))
	for i := range 3 {
		var out bytes.Buffer
		if exit, err := c.Run(t.Context(), fmt.Sprintf("echo %d", i), nil, &out, nil); err != nil || exit != 0 || out.String() != fmt.Sprintf("%d\n", i) {
			t.Fatalf("Run = %d, %v, %q", exit, err, out.String())
		}
	}
	if n := srv.Sessions(); n != 4 {
		t.Errorf("%d sessions, want the stalled agent's and one per command", n)
	}
}
