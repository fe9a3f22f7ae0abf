package layout

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIntegrationTestsCarryBuildTag: every test file under integration/ starts
// with `//go:build integration`, so `go test ./...` on a machine with Docker
// stays a unit run and the labs start only under `make integration`.
func TestIntegrationTestsCarryBuildTag(t *testing.T) {
	root := filepath.Join("..", "..", "integration")
	var n int
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		n++
		if first := firstLine(t, path); first != "//go:build integration" {
			t.Errorf("%s:1: %q; add `//go:build integration` and a blank line at the top", path, first)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walking %s: %v (%d test files)", root, err, n)
	}
}

func firstLine(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Scan()
	return s.Text()
}
