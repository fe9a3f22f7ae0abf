package upgrade_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/upgrade"
)

// Every cluster's snapshots have a folder of their own, one level under the snapshot folder:
// names that once shared one (and pruned each other's snapshots), names that differ only in case
// (one folder on a file system that ignores case) and names that would leave the folder (`..`
// wrote into the state folder) all get their own. A name that was already a safe folder name
// keeps the folder it had, so its snapshots are still where they were.
func TestSnapshotFoldersNeverCollide(t *testing.T) {
	dir := t.TempDir()
	names := []string{"prod/east", "prod_east", "prod east", "Prod_east", "PROD_EAST", "prod_east~", "..", ".", "",
		"../../etc", "/abs", "prod\x00east", "日本", "ñ", strings.Repeat("a", 300), strings.Repeat("a", 301), "default", "prod-east.1"}
	owner := map[string]string{}
	for _, name := range names {
		folder := upgrade.SnapshotFolder(dir, name)
		if filepath.Dir(folder) != dir || filepath.Base(folder) == ".." || filepath.Base(folder) == "." {
			t.Errorf("cluster %q: folder %s is not one level under %s", name, folder, dir)
		}
		if len(filepath.Base(folder)) > 200 {
			t.Errorf("cluster %q: folder name of %d bytes", name, len(filepath.Base(folder)))
		}
		key := strings.ToLower(filepath.Base(folder))
		if other, ok := owner[key]; ok {
			t.Errorf("clusters %q and %q share the folder %s", other, name, folder)
		}
		owner[key] = name
		if err := os.MkdirAll(folder, 0o700); err != nil {
			t.Errorf("cluster %q: %v", name, err)
		}
	}
	for _, name := range []string{"default", "prod_east", "prod-east.1"} {
		if got := upgrade.SnapshotFolder(dir, name); got != filepath.Join(dir, name) {
			t.Errorf("cluster %q moved to %s: a safe name keeps its folder", name, got)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != len(names) {
		t.Errorf("%d folders on disk for %d clusters", len(entries), len(names))
	}
}
