package sshconn

import (
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// cmdConn is a connection carried by a ProxyCommand: what is written goes to the command's
// stdin, what it prints is read. Closing it ends the command (its whole process group).
type cmdConn struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    io.ReadCloser
	stderr *tail
	addr   string

	once sync.Once
	done chan struct{} // closed when the command has exited
}

// dialCommand starts command with sh -c, as ssh runs a ProxyCommand, to reach addr.
func dialCommand(command, addr string) (net.Conn, error) {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c := &cmdConn{cmd: cmd, stderr: &tail{}, addr: addr, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	var err error
	if c.in, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("ProxyCommand %q: %w", command, err)
	}
	if c.out, err = cmd.StdoutPipe(); err != nil {
		return nil, fmt.Errorf("ProxyCommand %q: %w", command, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ProxyCommand %q: %w", command, err)
	}
	go func() {
		cmd.Wait() //nolint:errcheck // the SSH handshake or the next read reports the loss
		close(c.done)
	}()
	return c, nil
}

// Read returns what the command printed; at its end, the command's stderr says why.
func (c *cmdConn) Read(p []byte) (int, error) {
	n, err := c.out.Read(p)
	if err != nil {
		err = c.ended(err)
	}
	return n, err
}

func (c *cmdConn) Write(p []byte) (int, error) {
	n, err := c.in.Write(p)
	if err != nil {
		err = c.ended(err)
	}
	return n, err
}

// ended adds to err what the command wrote on stderr before it exited (waiting a moment for it
// to exit), so "broken pipe" reads "ProxyCommand ended: no route to host".
func (c *cmdConn) ended(err error) error {
	select {
	case <-c.done:
	case <-time.After(time.Second):
		return err
	}
	if msg := c.stderr.last(); msg != "" {
		return fmt.Errorf("ProxyCommand ended: %s: %w", msg, err)
	}
	return fmt.Errorf("ProxyCommand ended (%s): %w", c.cmd.ProcessState, err)
}

// Close ends the command: stdin closed, then the process group killed if it lingers.
func (c *cmdConn) Close() error {
	c.once.Do(func() {
		c.in.Close()
		select {
		case <-c.done:
		case <-time.After(time.Second):
			syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // it may be gone
			<-c.done
		}
	})
	return nil
}

func (c *cmdConn) LocalAddr() net.Addr  { return cmdAddr("proxycommand") }
func (c *cmdConn) RemoteAddr() net.Addr { return cmdAddr(c.addr) }

// Deadlines are not supported by pipes to a process; the dialer closes the connection on timeout.
func (c *cmdConn) SetDeadline(time.Time) error      { return nil }
func (c *cmdConn) SetReadDeadline(time.Time) error  { return nil }
func (c *cmdConn) SetWriteDeadline(time.Time) error { return nil }

type cmdAddr string

func (a cmdAddr) Network() string { return "proxycommand" }
func (a cmdAddr) String() string  { return string(a) }

// tail keeps the end of a command's stderr, for the message of a connection it ended.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	return len(p), nil
}

// last is the last non-empty line written.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
