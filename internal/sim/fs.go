package sim

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// memFile is a file or a folder of a host's in-memory disk.
type memFile struct {
	data  []byte
	dir   bool
	mode  fs.FileMode
	mtime time.Time
}

// memFS is a host's disk: clean absolute paths to files. The host's lock guards it.
type memFS map[string]*memFile

func (m memFS) mkdirAll(p string, now time.Time) {
	for p != "/" && p != "." {
		if f, ok := m[p]; ok && f.dir {
			return
		}
		m[p] = &memFile{dir: true, mode: fs.ModeDir | 0o755, mtime: now}
		p = path.Dir(p)
	}
}

func (m memFS) write(p string, data []byte, now time.Time) {
	m.mkdirAll(path.Dir(p), now)
	m[p] = &memFile{data: data, mode: 0o644, mtime: now}
}

// children lists the entries directly below dir, sorted.
func (m memFS) children(dir string) []string {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	var out []string
	for p := range m {
		if strings.HasPrefix(p, prefix) && !strings.Contains(p[len(prefix):], "/") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// removeAll removes p and everything below it.
func (m memFS) removeAll(p string) {
	prefix := p + "/"
	for q := range m {
		if q == p || strings.HasPrefix(q, prefix) {
			delete(m, q)
		}
	}
}

// rename moves p (and what is below it) to q.
func (m memFS) rename(p, q string) bool {
	f, ok := m[p]
	if !ok {
		return false
	}
	if d, ok := m[q]; ok && d.dir && !f.dir {
		q = path.Join(q, path.Base(p))
	}
	prefix := p + "/"
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			delete(m, k)
			m[q+"/"+k[len(prefix):]] = v
		}
	}
	delete(m, p)
	m[q] = f
	return true
}

// info is a memFile's fs.FileInfo and fs.DirEntry.
type info struct {
	name string
	f    *memFile
}

func (i info) Name() string               { return i.name }
func (i info) Size() int64                { return int64(len(i.f.data)) }
func (i info) Mode() fs.FileMode          { return i.f.mode }
func (i info) ModTime() time.Time         { return i.f.mtime }
func (i info) IsDir() bool                { return i.f.dir }
func (i info) Sys() any                   { return nil }
func (i info) Type() fs.FileMode          { return i.f.mode.Type() }
func (i info) Info() (fs.FileInfo, error) { return i, nil }

// openFile is an open file of the interpreter: reads come from a copy, writes land on Close.
type openFile struct {
	r      *bytes.Reader
	buf    bytes.Buffer
	write  bool
	commit func([]byte)
}

func (o *openFile) Read(p []byte) (int, error) {
	if o.r == nil {
		return 0, io.EOF
	}
	return o.r.Read(p)
}

func (o *openFile) Write(p []byte) (int, error) { return o.buf.Write(p) }

func (o *openFile) Close() error {
	if o.write && o.commit != nil {
		o.commit(o.buf.Bytes())
		o.commit = nil
	}
	return nil
}

// notExist is the error of a path that is not there.
func notExist(op, p string) error { return &fs.PathError{Op: op, Path: p, Err: os.ErrNotExist} }
