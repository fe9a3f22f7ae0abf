package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// TestDatabaseFilesArePrivate: a database kupgrade creates, and its -wal and -shm files, are
// readable by their owner only (0600), even under a permissive umask: they hold every upgrade's
// evidence.
func TestDatabaseFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0o002)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "kupgrade.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A write, so that the WAL and its index exist while the store is open.
	_, err = s.CreateUpgrade(context.Background(), state.NewUpgrade{Cluster: "c", FromVersion: "v1.29.0", ToVersion: "v1.30.0",
		Hosts: []state.NewHost{{Hostname: "controller-0", Personality: state.Controller}}, Actor: state.ActorCLI, Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if mode := fi.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s: mode %#o, want 0600", filepath.Base(name), mode)
		}
	}
}
