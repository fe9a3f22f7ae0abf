package sqlite_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
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

// TestSharedDatabaseWarned: opening a database others may read (an older kupgrade created it
// 0644) warns, naming it and the chmod that fixes it.
func TestSharedDatabaseWarned(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kupgrade.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s, err := sqlite.Open(context.Background(), path, state.WithLog(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if !strings.Contains(logs.String(), "readable by others") || !strings.Contains(logs.String(), "chmod 600 "+path) {
		t.Errorf("no warning about a database others may read:\n%s", logs.String())
	}
}
