package sshconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// How long a cancelled command gets after TERM, then after KILL, before its session is closed.
const (
	termGrace = 2 * time.Second
	killGrace = time.Second
)

// Run runs cmd with `sh -c` semantics in a session of its own, streaming its output to stdout
// and stderr (nil discards). exit is the command's status when it ran to its end, non-zero
// included; err != nil means the outcome is unknown (connection lost, ctx done), and then the
// command has been signalled and its session closed.
func (c *Client) Run(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) (exit int, err error) {
	if err := ctx.Err(); err != nil {
		return -1, fmt.Errorf("run on %s: %w", c.host, context.Cause(ctx))
	}
	s, err := c.ssh.NewSession()
	if err != nil {
		return -1, c.connErr("open session", err)
	}
	defer s.Close()
	s.Stdout, s.Stderr = stdout, stderr
	if stdin != nil {
		// A pipe rather than s.Stdin: Wait must not wait for a reader that never ends.
		w, err := s.StdinPipe()
		if err != nil {
			return -1, c.connErr("open stdin", err)
		}
		go func() {
			io.Copy(w, stdin) //nolint:errcheck // the command's exit status tells what mattered
			w.Close()
		}()
	}
	if err := s.Start(wrap(cmd)); err != nil {
		return -1, c.connErr("start command", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- s.Wait() }()
	select {
	case err := <-waited:
		return c.exitOf(err)
	case <-ctx.Done():
		stop(s, waited)
		return -1, fmt.Errorf("run on %s: %w", c.host, context.Cause(ctx))
	}
}

// stop ends a running command: TERM (the wrapper passes it to the command's process group),
// KILL if it lingers, then the deferred session close.
func stop(s *ssh.Session, waited <-chan error) {
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

// wrapper runs $1 in a session of its own (so its whole process group can be signalled) and
// stays its parent. OpenSSH signals only the process it started, so:
//   - TERM, INT or HUP to the wrapper are passed to the command's process group;
//   - a watchdog polls every second; if the wrapper dies (the client sent KILL) or its parent
//     sshd does (the connection was lost), it sends TERM, then KILL, to the group.
//
// setsid also keeps sudo's command outside the wrapper's group, so sudo relays those signals.
// Plain POSIX sh otherwise; without setsid the command shares the wrapper's group.
// It contains no single quote, so it can be quoted as is.
const wrapper = `exec 3<&0
if command -v setsid >/dev/null 2>&1; then setsid sh -c "$1" <&3 3<&- & else sh -c "$1" <&3 3<&- & fi
c=$! p=$$ pp=$PPID
exec 3<&-
k() { kill -$1 -$c 2>/dev/null || kill -$1 $c 2>/dev/null; }
(trap - TERM INT HUP
while kill -0 $c 2>/dev/null; do
if kill -0 $p 2>/dev/null && kill -0 $pp 2>/dev/null; then sleep 1; continue; fi
k TERM; sleep 1; k KILL; exit
done) </dev/null >/dev/null 2>&1 &
trap "k TERM" TERM
trap "k INT" INT
trap "k HUP" HUP
wait $c; s=$?
while kill -0 $c 2>/dev/null; do wait $c; s=$?; done
exit $s`

// wrap returns the command line sent to the server: the wrapper under `sh -c`, cmd as $1.
func wrap(cmd string) string {
	return "exec sh -c " + quote(wrapper) + " kupgrade " + quote(cmd)
}

// quote makes s one POSIX shell word.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
