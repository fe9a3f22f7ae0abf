package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
)

// LocalConn runs commands on this machine with /bin/sh -c: the connection of delegate_to:
// localhost and of hosts with ansible_connection=local. Cancelling a command's context kills
// its whole process group, as the SSH transport closes the remote session.
type LocalConn struct {
	Dir    string
	Env    []string
	closed atomic.Bool
}

var _ Conn = (*LocalConn)(nil)

// Run runs cmd; the exit status is returned as exit, a failure to run or a cancelled context
// as err.
func (c *LocalConn) Run(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if c.closed.Load() {
		return -1, net.ErrClosed
	}
	x := exec.CommandContext(ctx, "/bin/sh", "-c", cmd)
	x.Dir = c.Dir
	x.Env = append(os.Environ(), c.Env...)
	x.Stdin, x.Stdout, x.Stderr = stdin, stdout, stderr
	x.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	x.Cancel = func() error { return syscall.Kill(-x.Process.Pid, syscall.SIGKILL) }
	x.WaitDelay = 2 * time.Second
	err := x.Run()
	if ctx.Err() != nil {
		return -1, ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return -1, err
	}
	return 0, nil
}

// Upload writes r to a temporary name beside path, sets mode, and renames it into place.
func (c *LocalConn) Upload(ctx context.Context, r io.Reader, path string, mode fs.FileMode) error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	path = c.abs(path)
	f, err := os.CreateTemp(filepath.Dir(path), ".upload-*")
	if err != nil {
		return fmt.Errorf("upload %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if _, err := io.Copy(f, ctxReader{ctx, r}); err != nil {
		f.Close()
		return fmt.Errorf("upload %s: %w", path, err)
	}
	if err := f.Chmod(mode.Perm()); err != nil {
		f.Close()
		return fmt.Errorf("upload %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("upload %s: %w", path, err)
	}
	return os.Rename(f.Name(), path)
}

// Download copies path to w.
func (c *LocalConn) Download(ctx context.Context, path string, w io.Writer) error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	f, err := os.Open(c.abs(path))
	if err != nil {
		return fmt.Errorf("download %s: %w", path, err)
	}
	defer f.Close()
	_, err = io.Copy(w, ctxReader{ctx, f})
	return err
}

// Close makes every later call fail with net.ErrClosed.
func (c *LocalConn) Close() error {
	c.closed.Store(true)
	return nil
}

func (c *LocalConn) abs(p string) string {
	if filepath.IsAbs(p) || c.Dir == "" {
		return p
	}
	return filepath.Join(c.Dir, p)
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
