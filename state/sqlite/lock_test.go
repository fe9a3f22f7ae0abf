package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

var newUpgrade = state.NewUpgrade{Cluster: "c", FromVersion: "v1.29.4", ToVersion: "v1.30.2",
	Hosts: []state.NewHost{{Hostname: "controller-0", Personality: state.Controller}}, Actor: state.ActorCLI, Reason: "test"}

// handEdit is an operator's sqlite3 shell in the middle of a hand edit: BEGIN EXCLUSIVE and an
// UPDATE, on its own connection, until release.
type handEdit struct {
	conn *sql.Conn
}

func holdWriteLock(t *testing.T, path string) *handEdit {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	for _, q := range []string{"BEGIN EXCLUSIVE", "UPDATE host SET personality = personality"} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("hand edit %q: %v", q, err)
		}
	}
	return &handEdit{conn: conn}
}

func (h *handEdit) release(t *testing.T) {
	if _, err := h.conn.ExecContext(context.Background(), "COMMIT"); err != nil {
		t.Errorf("hand edit COMMIT: %v", err)
	}
}

// seeded is a database file with one upgrade of cluster "c".
func seeded(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kupgrade.db")
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CreateUpgrade(t.Context(), newUpgrade); err != nil {
		t.Fatal(err)
	}
	return path
}

func open(t *testing.T, path string, opts ...state.Option) state.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path, opts...)
	if err != nil {
		t.Fatalf("open %s while another process holds the write lock: %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestJournalModeIsWAL(t *testing.T) {
	path := seeded(t)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal (readers must not wait for a writer)", mode, err)
	}
}

// Readers answer while a hand edit holds the write lock: opening takes no lock when the schema
// is up to date, and reads never wait for the writer (WAL). A busy window of an hour would make
// this test hang if either waited.
func TestReadersDoNotWaitForTheWriteLock(t *testing.T) {
	path := seeded(t)
	h := holdWriteLock(t, path)
	defer h.release(t)
	for _, opts := range [][]state.Option{{state.ReadOnly()}, nil} {
		s := open(t, path, append(opts, state.WithLockWait(time.Hour))...)
		u, err := s.Upgrade(t.Context(), "c")
		if err != nil || u.State != state.UpgradeStarted {
			t.Fatalf("Upgrade while locked = %v, %v", u.State, err)
		}
		if hosts, err := s.Hosts(t.Context(), "c"); err != nil || len(hosts) != 1 {
			t.Fatalf("Hosts while locked = %v, %v", hosts, err)
		}
	}
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	s := open(t, seeded(t), state.ReadOnly())
	_, err := s.CreateUpgrade(t.Context(), state.NewUpgrade{Cluster: "d", FromVersion: "v1.29.4", ToVersion: "v1.30.2",
		Actor: state.ActorCLI, Reason: "test"})
	if err == nil {
		t.Fatal("a read-only store wrote")
	}
}

// A read-only open of a new file creates the schema first, then answers "no upgrade".
func TestReadOnlyCreatesMissingSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	s := open(t, path, state.ReadOnly())
	if _, err := s.Upgrade(t.Context(), "c"); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Upgrade on a new database = %v, want ErrNotFound", err)
	}
}

// A writer waits for the hand edit to commit, then writes.
func TestWriterWaitsForTheWriteLock(t *testing.T) {
	path := seeded(t)
	s := open(t, path, state.WithLockWait(time.Minute))
	h := holdWriteLock(t, path)
	done := make(chan error, 1)
	go func() {
		_, err := s.CreateUpgrade(context.Background(), state.NewUpgrade{Cluster: "d", FromVersion: "v1.29.4",
			ToVersion: "v1.30.2", Actor: state.ActorCLI, Reason: "test"})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // let the writer reach the lock; it passes either way
	h.release(t)
	if err := <-done; err != nil {
		t.Fatalf("write after the hand edit committed: %v", err)
	}
	if _, err := s.Upgrade(t.Context(), "d"); err != nil {
		t.Fatalf("the write is not there: %v", err)
	}
}

// A writer that never gets the lock fails with ErrConflict (exit 4), naming the file and why.
func TestWriterGivesUpWithAClearMessage(t *testing.T) {
	path := seeded(t)
	s := open(t, path, state.WithLockWait(100*time.Millisecond))
	h := holdWriteLock(t, path)
	defer h.release(t)
	_, err := s.Apply(t.Context(), state.Start("c", state.ActorCLI, state.UpgradeStarted, state.DownloadingImages,
		state.LeaseSpec{Owner: "o", Operation: "download-images", TTL: time.Minute}, state.Because("test")))
	if !errors.Is(err, state.ErrConflict) {
		t.Fatalf("Apply while locked = %v, want ErrConflict", err)
	}
	for _, want := range []string{path, "another process holds its write lock", "nothing was written"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
