package sshconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/kupgrade/kupgrade/internal/shellword"
)

// How long a cancelled command gets after TERM, then after KILL, before its session is closed.
const (
	termGrace = 2 * time.Second
	killGrace = time.Second
)

// Run runs cmd with `sh -c` semantics, streaming its output to stdout and stderr (nil
// discards). exit is the command's status when it ran to its end, non-zero included; err !=
// nil means the outcome is unknown (connection lost, ctx done), and then the command has been
// signalled and stopped.
//
// A command without stdin runs through an agent session (agentScript), reused from one command
// to the next; a command with stdin, or any command on a server whose shell cannot run the
// agent, runs in a session of its own under the wrapper.
func (c *Client) Run(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) (exit int, err error) {
	if ctx.Err() != nil {
		return -1, fmt.Errorf("run on %s: %w", c.host, cause(ctx))
	}
	for try := 0; stdin == nil && try < 3; try++ {
		a, err := c.takeAgent(ctx)
		if errors.Is(err, errNoAgent) {
			break
		}
		if err != nil {
			return -1, err
		}
		if exit, err := c.runAgent(ctx, a, cmd, stdout, stderr); err != errNotSent {
			return exit, err
		}
		// That agent had ended unseen: try the next, then a session of its own.
	}
	return c.runSession(ctx, cmd, stdin, stdout, stderr)
}

// runSession runs cmd in a session of its own under the wrapper.
func (c *Client) runSession(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	s, err := c.ssh.NewSession()
	if err != nil {
		return -1, c.connErr("open session", err)
	}
	defer s.Close()
	s.Stdout, s.Stderr = stdout, stderr
	// A pipe rather than s.Stdin, so Wait never waits for a reader that does not end. Without
	// stdin of its own the command reads /dev/null and the channel's stdin stays open as the
	// wrapper's lifeline: its end (Close, cancel, lost connection) kills the command.
	w, err := s.StdinPipe()
	if err != nil {
		return -1, c.connErr("open stdin", err)
	}
	var stop string
	if stdin != nil {
		stop = stopDir()
	}
	beforeStart()
	if err := s.Start(wrap(cmd, stop)); err != nil {
		return -1, c.connErr("start command", err)
	}
	if stdin != nil {
		// Only now: OpenSSH drops an end of input that comes before the command has
		// started, and the command would then wait for it forever.
		go func() {
			io.Copy(w, stdin) //nolint:errcheck // the command's exit status tells what mattered
			w.Close()
		}()
	}
	waited := make(chan error, 1)
	go func() { waited <- s.Wait() }()
	select {
	case err := <-waited:
		return c.exitOf(err)
	case <-ctx.Done():
		if stop == "" {
			w.Close() // cut the lifeline
		} else {
			c.removeStopDir(stop)
		}
		end(s, waited)
		return -1, fmt.Errorf("run on %s: %w", c.host, cause(ctx))
	}
}

// beforeStart runs just before a session's command is sent; tests slow it down to show that
// nothing of stdin leaves before the command has started.
var beforeStart = func() {}

// cause says why ctx ended: its cancel cause when it has one, else its Err.
func cause(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return ctx.Err()
}

// removeStopDir asks the wrapper's watchdog to stop the command, through a session of its own:
// some servers ignore signals (OpenSSH before 9.8 for root logins).
func (c *Client) removeStopDir(dir string) {
	s, err := c.ssh.NewSession()
	if err != nil {
		return // the connection is gone: the watchdog sees its sshd go too
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run("rmdir " + shellword.Quote(dir)) //nolint:errcheck // nothing better to do if it fails
	}()
	t := time.NewTimer(termGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C: // a stalled server: the keepalives will end the connection
	}
	s.Close()
}

// end signals a running command: TERM (the wrapper passes it to the command's process
// group), KILL if it lingers, then the caller's deferred session close.
func end(s *ssh.Session, waited <-chan error) {
	for _, step := range []struct {
		sig   ssh.Signal
		grace time.Duration
	}{{ssh.SIGTERM, termGrace}, {ssh.SIGKILL, killGrace}} {
		if s.Signal(step.sig) != nil {
			return // the channel is gone already
		}
		t := time.NewTimer(step.grace)
		select {
		case <-waited:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (c *Client) exitOf(err error) (int, error) {
	var ee *ssh.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee) && ee.Signal() != "":
		return 128 + signalNumber(ee.Signal()), nil
	case errors.As(err, &ee):
		return ee.ExitStatus(), nil
	}
	return -1, c.connErr("run command", err)
}

// signalNumber maps the SSH signal names to their Linux numbers, as a shell reports them.
func signalNumber(name string) int {
	n := map[string]int{"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "ABRT": 6, "FPE": 8, "KILL": 9,
		"USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15}[name]
	if n == 0 {
		return 127
	}
	return n
}
