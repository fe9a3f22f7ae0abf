package inventory

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A host list given to -i, as Ansible's host_list plugin reads it: each name (host or
// host:port) in the ungrouped group; a file whose name has a comma is still a file.
func TestHostList(t *testing.T) {
	inv, err := LoadAll("web1, web2:2222,")
	if err != nil {
		t.Fatal(err)
	}
	if got := inv.Groups["ungrouped"]; !slices.Equal(got, []string{"web1", "web2"}) {
		t.Errorf("ungrouped = %v, want [web1 web2]", got)
	}
	for name, port := range map[string]int{"web1": 22, "web2": 2222} {
		h, ok := inv.Host(name)
		if !ok || h.Port() != port {
			t.Errorf("%s: found %v, port %d, want port %d", name, ok, h.Port(), port)
		}
	}
	wd, _ := os.Getwd()
	if inv, err = LoadAll(filepath.Join(wd, "localhost,")); err != nil || len(inv.Groups["ungrouped"]) != 1 {
		t.Errorf("a host list the command line made absolute: %v, %v", err, inv.Groups)
	}
	if _, err = LoadAll("/nowhere/a,b"); err == nil {
		t.Error("a missing file in a folder, its name with a comma, read as a host list")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "a,b.yml")
	if err := os.WriteFile(file, []byte("all:\n  hosts:\n    filehost:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inv, err = LoadAll(file)
	if _, ok := inv.Host("filehost"); err != nil || !ok {
		t.Errorf("a file named with a comma: %v, filehost found %v", err, ok)
	}
}
