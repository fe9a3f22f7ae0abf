package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// TestNewerSchemaRefused: a database whose schema holds a migration this kupgrade does not know
// (a newer kupgrade migrated it) is refused, for writing and for reading, as bad input naming the
// database and the migration, and nothing is written to it.
func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kupgrade.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before := count(t, db)
	_, err = db.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_from_the_future.sql', '2030-01-02 03:04:05')")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]state.Option{nil, {state.ReadOnly()}} {
		s, err := sqlite.Open(ctx, path, opts...)
		if err == nil {
			s.Close()
			t.Fatalf("open %v: want a refusal", opts)
		}
		msg := err.Error()
		if !errors.Is(err, state.ErrBadInput) || !strings.Contains(msg, path) ||
			!strings.Contains(msg, "9999_from_the_future.sql (applied 2030-01-02 03:04:05)") || !strings.Contains(msg, "newer kupgrade") {
			t.Errorf("refusal: %v", err)
		}
	}
	if n := count(t, db); n != before+1 {
		t.Errorf("schema_migrations rows after the refusals: %d, want %d (the known ones and the unknown one)", n, before+1)
	}
}

func count(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM schema_migrations").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
