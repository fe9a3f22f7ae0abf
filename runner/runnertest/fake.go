package runnertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner"
)

// ErrDropped is what a FakeConn returns after Drop: the connection is gone.
var ErrDropped = errors.New("connection lost")

// Result is a scripted answer to a command.
type Result struct {
	RC             int
	Stdout, Stderr string
	Err            error // returned as Run's error (an unknown outcome)
	// Drop loses the connection while this command runs: Run returns ErrDropped, and so does
	// every later call.
	Drop bool
}

// FakeConn answers commands from Results: the result whose key is the longest substring of
// the command; commands that match nothing succeed with no output. Uploads land in Files.
type FakeConn struct {
	Results map[string]Result
	// SkipRecord stops the recording of calls (benchmarks).
	SkipRecord bool

	mu      sync.Mutex
	calls   []string
	files   map[string][]byte
	dropped bool
	closed  bool
}

var _ runner.Conn = (*FakeConn)(nil)

// Run answers cmd from Results, honouring ctx.
func (f *FakeConn) Run(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	f.mu.Lock()
	if !f.SkipRecord {
		f.calls = append(f.calls, cmd)
	}
	if f.dropped || f.closed {
		f.mu.Unlock()
		return -1, ErrDropped
	}
	r := f.match(cmd)
	if r.Drop {
		f.dropped = true
	}
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return -1, err
	}
	if r.Drop {
		return -1, ErrDropped
	}
	if r.Err != nil {
		return -1, r.Err
	}
	if r.Stdout != "" {
		io.WriteString(stdout, r.Stdout)
	}
	if r.Stderr != "" {
		io.WriteString(stderr, r.Stderr)
	}
	return r.RC, nil
}

func (f *FakeConn) match(cmd string) Result {
	best, found := "", false
	for k := range f.Results {
		if strings.Contains(cmd, k) && (!found || len(k) > len(best)) {
			best, found = k, true
		}
	}
	return f.Results[best]
}

// Upload stores the content under path.
func (f *FakeConn) Upload(ctx context.Context, r io.Reader, path string, _ fs.FileMode) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "upload "+path)
	if f.dropped || f.closed {
		return ErrDropped
	}
	if f.files == nil {
		f.files = map[string][]byte{}
	}
	f.files[path] = b
	return ctx.Err()
}

// Download writes what was uploaded to path.
func (f *FakeConn) Download(ctx context.Context, path string, w io.Writer) error {
	f.mu.Lock()
	f.calls = append(f.calls, "download "+path)
	b, ok := f.files[path]
	dropped := f.dropped || f.closed
	f.mu.Unlock()
	if dropped {
		return ErrDropped
	}
	if !ok {
		return fmt.Errorf("download %s: %w", path, fs.ErrNotExist)
	}
	_, err := io.Copy(w, bytes.NewReader(b))
	return err
}

// Close marks the connection closed.
func (f *FakeConn) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

// Drop loses the connection now: every later call fails with ErrDropped.
func (f *FakeConn) Drop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dropped = true
}

// Calls returns the commands run so far (uploads and downloads as "upload PATH").
func (f *FakeConn) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// Closed reports whether Close was called.
func (f *FakeConn) Closed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// File returns what was uploaded to path.
func (f *FakeConn) File(path string) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.files[path]
	return b, ok
}

// FakeDialer hands out a FakeConn per host, made by New (a FakeConn with Results when New is
// nil), a fresh one on every dial. Hosts named in Unreachable fail to dial.
type FakeDialer struct {
	Results     map[string]Result
	New         func(host string) *FakeConn
	Unreachable map[string]error

	mu    sync.Mutex
	conns map[string][]*FakeConn
}

// Dial returns a new FakeConn for h.
func (d *FakeDialer) Dial(ctx context.Context, h *inventory.Host) (runner.Conn, error) {
	if err := d.Unreachable[h.Name]; err != nil {
		return nil, err
	}
	var c *FakeConn
	if d.New != nil {
		c = d.New(h.Name)
	} else {
		c = &FakeConn{Results: d.Results}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conns == nil {
		d.conns = map[string][]*FakeConn{}
	}
	d.conns[h.Name] = append(d.conns[h.Name], c)
	return c, nil
}

// Conns returns every FakeConn dialed for host, oldest first.
func (d *FakeDialer) Conns(host string) []*FakeConn {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*FakeConn(nil), d.conns[host]...)
}
