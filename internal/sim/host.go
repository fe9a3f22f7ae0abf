package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Host is one simulated node.
type Host struct {
	Name       string // its inventory name
	Login      string // the SSH login that reaches it: CLUSTER.NAME
	Controller bool
	cluster    *Cluster

	mu   sync.Mutex // guards disk
	disk memFS

	fence   chan struct{} // the fence's flock: a token held by the command that locked it
	running atomic.Int32  // kubeadm commands running now
	maxRun  atomic.Int32  // the most that ever ran at once
	runs    atomic.Int32  // kubeadm commands run

	unreachable atomic.Bool // SetUnreachable: new connections are cut
}

func newHost(c *Cluster, name string, controller bool, from string, now time.Time) *Host {
	h := &Host{Name: name, Login: c.Name + "." + name, Controller: controller, cluster: c, disk: memFS{}, fence: make(chan struct{}, 1)}
	h.lay(Layout{Version: from, Kubeadm: c.fleet.opts.To, Controller: controller}, now)
	return h
}

// MaxConcurrentKubeadm is the most kubeadm commands that ever ran on h at once.
func (h *Host) MaxConcurrentKubeadm() int { return int(h.maxRun.Load()) }

// RunningKubeadm is how many kubeadm commands run on h now (the lab's pgrep -f kubeadm).
func (h *Host) RunningKubeadm() int { return int(h.running.Load()) }

// KubeadmRuns is how many kubeadm commands ran on h.
func (h *Host) KubeadmRuns() int { return int(h.runs.Load()) }

// File returns the content of a file of h's disk, and whether it exists.
func (h *Host) File(p string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f, ok := h.disk[p]
	if !ok || f.dir {
		return "", false
	}
	return string(f.data), true
}

// parsed caches the scripts hosts run: the same few scripts run thousands of times.
var parsed sync.Map // string -> *syntax.File

func parse(script string) (*syntax.File, error) {
	if f, ok := parsed.Load(script); ok {
		return f.(*syntax.File), nil
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, err
	}
	parsed.Store(script, f)
	return f, nil
}

// Run runs script as `sh -c script name args...` would on h, and returns its exit status.
func (h *Host) Run(ctx context.Context, script string, args []string, env []string, stdout, stderr io.Writer) int {
	f, err := parse(script)
	if err != nil {
		fmt.Fprintf(stderr, "sh: %v (in %.200q)\n", err, script)
		return 2
	}
	r, err := interp.New(
		interp.StdIO(nil, stdout, stderr),
		interp.Env(expand.ListEnviron(append([]string{"PATH=" + binDir(), "HOME=/root", "USER=root"}, env...)...)),
		interp.Dir("/"),
		interp.Params(append([]string{"--"}, args...)...),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return h.exec }),
		interp.OpenHandler(h.open), interp.StatHandler(h.stat), interp.ReadDirHandler2(h.readDir),
		interp.AccessHandler(h.access),
	)
	if err != nil {
		fmt.Fprintf(stderr, "sh: %v\n", err)
		return 2
	}
	return status(r.Run(ctx, f))
}

// status is the exit status of an interpreter's error.
func status(err error) int {
	var es interp.ExitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &es):
		return int(es)
	default:
		return 1
	}
}

func (h *Host) open(ctx context.Context, p string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	p = abs(ctx, p)
	if p == "/dev/null" {
		return &openFile{write: true}, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	f, ok := h.disk[p]
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		if !ok || f.dir {
			return nil, notExist("open", p)
		}
		return &openFile{r: bytesReader(f.data)}, nil
	}
	if _, dir := h.disk[path.Dir(p)]; !dir {
		return nil, notExist("open", p)
	}
	o := &openFile{write: true, commit: func(b []byte) {
		h.mu.Lock()
		defer h.mu.Unlock()
		data := append([]byte(nil), b...)
		if old, ok := h.disk[p]; ok && flag&os.O_APPEND != 0 {
			data = append(append([]byte(nil), old.data...), b...)
		}
		h.disk.write(p, data, time.Now())
	}}
	if !ok || flag&os.O_TRUNC != 0 { // the file exists from the open on, as on a disk
		h.disk.write(p, nil, time.Now())
	}
	return o, nil
}

func (h *Host) stat(ctx context.Context, p string, _ bool) (fs.FileInfo, error) {
	p = abs(ctx, p)
	h.mu.Lock()
	defer h.mu.Unlock()
	if p == "/" {
		return info{name: "/", f: &memFile{dir: true, mode: fs.ModeDir | 0o755}}, nil
	}
	f, ok := h.disk[p]
	if !ok {
		return nil, notExist("stat", p)
	}
	return info{name: path.Base(p), f: f}, nil
}

// access is test -r, -w and -x on h's disk, as root: a file that exists may be read and
// written, and run when a mode bit says so or when it is a folder.
func (h *Host) access(ctx context.Context, p string, mode interp.AccessMode) error {
	fi, err := h.stat(ctx, p, true)
	if err != nil {
		return err
	}
	if mode&interp.AccessExec != 0 && !fi.IsDir() && fi.Mode()&0o111 == 0 {
		return &fs.PathError{Op: "access", Path: p, Err: fs.ErrPermission}
	}
	return nil
}

func (h *Host) readDir(ctx context.Context, p string) ([]fs.DirEntry, error) {
	p = abs(ctx, p)
	h.mu.Lock()
	defer h.mu.Unlock()
	if f, ok := h.disk[p]; p != "/" && (!ok || !f.dir) {
		return nil, notExist("readdir", p)
	}
	var out []fs.DirEntry
	for _, c := range h.disk.children(p) {
		out = append(out, info{name: path.Base(c), f: h.disk[c]})
	}
	return out, nil
}

// abs resolves p against the interpreter's folder.
func abs(ctx context.Context, p string) string {
	if !path.IsAbs(p) {
		p = path.Join(interp.HandlerCtx(ctx).Dir, p)
	}
	return path.Clean(p)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
