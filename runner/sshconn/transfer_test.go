package sshconn_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestUploadDownloadRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		size int
		mode fs.FileMode
		// pipe hides the size, so Upload must find out by reading ahead
		pipe bool
	}{
		{name: "empty", size: 0, mode: 0o600},
		{name: "small", size: 1000, mode: 0o640},
		{name: "just under concurrent", size: 4<<20 - 1, mode: 0o644, pipe: true},
		{name: "64 MiB", size: 64 << 20, mode: 0o755},
		{name: "8 MiB unknown size", size: 8 << 20, mode: 0o600, pipe: true},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			srv := k.start(t)
			c := dial(t, srv)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					data := make([]byte, tt.size)
					rand.Read(data)
					var src io.Reader = bytes.NewReader(data)
					if tt.pipe {
						src = io.MultiReader(src) // no Len, no Size
					}
					dst := filepath.Join(srv.Dir, filepath.Base(t.Name()), "file")
					os.MkdirAll(filepath.Dir(dst), 0o755)
					os.WriteFile(dst, []byte("old content"), 0o600) // Upload replaces it
					if err := c.Upload(t.Context(), src, dst, tt.mode); err != nil {
						t.Fatalf("Upload: %v", err)
					}
					fi, err := os.Stat(dst)
					if err != nil {
						t.Fatalf("stat uploaded file: %v", err)
					}
					if fi.Mode().Perm() != tt.mode {
						t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.mode)
					}
					var got bytes.Buffer
					if err := c.Download(t.Context(), dst, &got); err != nil {
						t.Fatalf("Download: %v", err)
					}
					if sha256.Sum256(got.Bytes()) != sha256.Sum256(data) {
						t.Errorf("downloaded %d bytes that differ from the %d uploaded", got.Len(), len(data))
					}
					assertNoTemp(t, filepath.Dir(dst), filepath.Base(dst))
				})
			}
		})
	}
}

func TestUploadFailureLeavesNothing(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			srv := k.start(t)
			c := dial(t, srv)
			dir := filepath.Join(srv.Dir, "target")
			os.Mkdir(dir, 0o755)
			dst := filepath.Join(dir, "file")
			os.WriteFile(dst, []byte("keep me"), 0o644)
			failing := io.MultiReader(bytes.NewReader(make([]byte, 100_000)), errReader{})
			if err := c.Upload(t.Context(), failing, dst, 0o644); err == nil {
				t.Fatal("Upload of a failing reader succeeded")
			}
			if b, _ := os.ReadFile(dst); string(b) != "keep me" {
				t.Errorf("destination changed to %q", b)
			}
			assertNoTemp(t, dir, "file")
			if err := c.Upload(t.Context(), bytes.NewReader([]byte("x")), filepath.Join(srv.Dir, "missing", "file"), 0o644); err == nil {
				t.Error("Upload into a missing folder succeeded")
			}
			if err := c.Download(t.Context(), filepath.Join(srv.Dir, "missing"), io.Discard); err == nil {
				t.Error("Download of a missing file succeeded")
			}
		})
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// assertNoTemp fails when dir holds anything but want (a leftover temporary file).
func assertNoTemp(t *testing.T, dir, want string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	for _, e := range entries {
		if e.Name() != want {
			t.Errorf("left behind in %s: %s", dir, e.Name())
		}
	}
}
