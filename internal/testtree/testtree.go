// Package testtree writes a tree of files for a test.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files (slash-separated paths relative to a fresh temporary folder -> content),
// creating their folders, and returns the folder.
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
