package runner

import (
	"github.com/kupgrade/kupgrade/modules"

	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/inventory"
)

// Conn is the transport to one host (modules.Conn: the runner hands it to modules).
// runner/sshconn satisfies it without importing the runner.
type Conn = modules.Conn

// Dialer opens a Conn to a host.
type Dialer interface {
	Dial(ctx context.Context, h *inventory.Host) (Conn, error)
}

// UnreachableError says a host could not be reached, or its connection was lost during a task.
// It is of class fault.ErrUnreachable, which cmd maps to exit status 5.
type UnreachableError struct {
	Host string
	Err  error
}

// Error names the host once: a cause that already names it (an SSH error: "ssh HOST (ADDR):
// unreachable: ...") is said as it is, so one unreachable host makes one short line.
func (e *UnreachableError) Error() string {
	if e.Err != nil && namesHost(e.Err.Error(), e.Host) {
		return e.Err.Error()
	}
	return fmt.Sprintf("%s unreachable: %v", e.Host, e.Err)
}

// namesHost reports whether msg names host as a word (controller-1 is not named by
// controller-10).
func namesHost(msg, host string) bool {
	for i := 0; host != "" && i+len(host) <= len(msg); {
		j := strings.Index(msg[i:], host)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(host)
		if (at == 0 || !hostByte(msg[at-1])) && (end == len(msg) || !hostByte(msg[end])) {
			return true
		}
		i = at + 1
	}
	return false
}

func hostByte(b byte) bool {
	return b == '-' || b == '_' || b == '.' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Is makes the error of class fault.ErrUnreachable.
func (e *UnreachableError) Is(target error) bool { return target == fault.ErrUnreachable }

// trackedConn wraps a pooled Conn for one host during a play and remembers whether a call lost
// the connection, so the engine can drop it from the pool and mark the host unreachable.
type trackedConn struct {
	Conn
	lost  error
	key   string            // the pool's key, when not the host's name (delegate_to, remote_user)
	local bool              // a local connection (connFor gave no pool key): reboot refuses it
	say   func(line string) // the running task's lines go to the live view (tapLines), when set
}

func (c *trackedConn) Run(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	stdout, stderr = tapped(stdout, stderr, c.say)
	rc, err := c.Conn.Run(ctx, cmd, stdin, stdout, stderr)
	// Per the Conn contract an error with a live ctx can only be a lost connection.
	if err != nil && ctx.Err() == nil {
		c.lost = err
	}
	return rc, err
}

// Lost says whether a call lost the connection: modules ask it (a transfer error is the
// file's, not the connection's, unless it is lost).
func (c *trackedConn) Lost() bool { return c.lost != nil }

func (c *trackedConn) Upload(ctx context.Context, r io.Reader, remotePath string, mode fs.FileMode) error {
	err := c.Conn.Upload(ctx, r, remotePath, mode)
	if err != nil && ctx.Err() == nil && isConnLoss(err) {
		c.lost = err
	}
	return err
}

func (c *trackedConn) Download(ctx context.Context, remotePath string, w io.Writer) error {
	err := c.Conn.Download(ctx, remotePath, w)
	if err != nil && ctx.Err() == nil && isConnLoss(err) {
		c.lost = err
	}
	return err
}

// isConnLoss tells a transfer error caused by the connection from one caused by the remote file
// (permission denied, no such folder), which must not drop the connection.
func isConnLoss(err error) bool {
	return errors.Is(err, fault.ErrUnreachable) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// connLost says whether c is a tracked connection that a call lost.
func connLost(c Conn) bool {
	t, ok := c.(*trackedConn)
	return ok && t.lost != nil
}
