package sshconn

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/pkg/sftp"
)

// concurrentFrom is the size from which uploads issue concurrent writes: below it the extra
// requests cost more than they save (docs/performance.md: 1 MiB files got 11 % slower).
const concurrentFrom = 4 << 20

// sftpClient opens the connection's SFTP session on first use and reuses it afterwards.
func (c *Client) sftpClient() (*sftp.Client, error) {
	c.sftpMu.Lock()
	defer c.sftpMu.Unlock()
	if c.sftp != nil {
		return c.sftp, nil
	}
	select {
	case <-c.done:
		return nil, c.connErr("open sftp", fs.ErrClosed)
	default:
	}
	sc, err := sftp.NewClient(c.ssh, sftp.MaxConcurrentRequestsPerFile(64))
	if err != nil {
		return nil, c.connErr("open sftp", err)
	}
	c.sftp = sc
	return sc, nil
}

// Upload writes r to remotePath: into a temporary file in the same folder, chmod-ed to mode,
// then renamed over remotePath, so readers never see a partial file. On failure the temporary
// file is removed and remotePath is untouched.
func (c *Client) Upload(ctx context.Context, r io.Reader, remotePath string, mode fs.FileMode) (err error) {
	sc, err := c.sftpClient()
	if err != nil {
		return err
	}
	fail := func(op string, err error) error {
		if ctx.Err() != nil {
			return fmt.Errorf("upload %s to %s: %w", remotePath, c.host, cause(ctx))
		}
		if c.isDone() {
			return c.connErr("upload "+remotePath, err)
		}
		return fmt.Errorf("upload %s to %s: %s: %w", remotePath, c.host, op, err)
	}
	tmp := tempName(remotePath)
	f, err := sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return fail("create "+tmp, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			sc.Remove(tmp) //nolint:errcheck // best effort; the original error is what matters
		}
	}()
	src, large, err := sized(ctxReader(ctx, r), r)
	if err != nil {
		return fail("read source", err)
	}
	if large {
		_, err = f.ReadFromWithConcurrency(src, 0)
	} else {
		_, err = f.ReadFrom(src)
	}
	if err != nil {
		return fail("write "+tmp, err)
	}
	if err = f.Chmod(mode); err != nil {
		return fail("chmod "+tmp, err)
	}
	if err = f.Close(); err != nil {
		return fail("close "+tmp, err)
	}
	if err = rename(sc, tmp, remotePath); err != nil {
		return fail("rename "+tmp, err)
	}
	return nil
}

// sized decides whether r is large enough for concurrent writes, reading at most
// concurrentFrom bytes ahead when r cannot tell its size.
func sized(src io.Reader, r io.Reader) (io.Reader, bool, error) {
	switch s := r.(type) {
	case interface{ Len() int }:
		return src, s.Len() >= concurrentFrom, nil
	case interface{ Size() int64 }:
		return src, s.Size() >= concurrentFrom, nil
	case interface{ Stat() (os.FileInfo, error) }:
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() {
			return src, fi.Size() >= concurrentFrom, nil
		}
	}
	head := make([]byte, concurrentFrom)
	n := 0
	for n < len(head) {
		m, err := src.Read(head[n:])
		n += m
		if err == io.EOF {
			return bytes.NewReader(head[:n]), false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
	return io.MultiReader(bytes.NewReader(head), src), true, nil
}

// rename replaces newpath atomically where the server allows it (OpenSSH's posix-rename);
// plain SFTP rename refuses an existing target, so that one is removed first.
func rename(sc *sftp.Client, oldpath, newpath string) error {
	if _, ok := sc.HasExtension("posix-rename@openssh.com"); ok {
		return sc.PosixRename(oldpath, newpath)
	}
	if err := sc.Rename(oldpath, newpath); err == nil {
		return nil
	}
	if err := sc.Remove(newpath); err != nil && !os.IsNotExist(err) {
		return err
	}
	return sc.Rename(oldpath, newpath)
}

func tempName(remotePath string) string {
	dir, base := path.Split(remotePath)
	return path.Join(dir, "."+base+".kupgrade-"+rand.Text())
}

// Download copies remotePath into w.
func (c *Client) Download(ctx context.Context, remotePath string, w io.Writer) error {
	sc, err := c.sftpClient()
	if err != nil {
		return err
	}
	f, err := sc.Open(remotePath)
	if err == nil {
		defer f.Close()
		_, err = f.WriteTo(ctxWriter(ctx, w))
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("download %s from %s: %w", remotePath, c.host, cause(ctx))
	case c.isDone():
		return c.connErr("download "+remotePath, err)
	}
	return fmt.Errorf("download %s from %s: %w", remotePath, c.host, err)
}

// isDone reports whether the connection has ended (lost or closed).
func (c *Client) isDone() bool { return isClosed(c.done) }

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// readerFunc and writerFunc let a transfer check ctx between chunks without keeping ctx in a
// struct: pkg/sftp takes no context.
type readerFunc func(p []byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func ctxReader(ctx context.Context, r io.Reader) io.Reader {
	return readerFunc(func(p []byte) (int, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		return r.Read(p)
	})
}

func ctxWriter(ctx context.Context, w io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		return w.Write(p)
	})
}
