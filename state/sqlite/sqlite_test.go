package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
	"github.com/kupgrade/kupgrade/state/storetest"
)

// backend is a new database file in a temporary folder.
func backend(tb testing.TB) storetest.Backend {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "kupgrade.db")
	open := func(tb testing.TB, opts ...state.Option) state.Store {
		tb.Helper()
		s, err := sqlite.Open(context.Background(), path, opts...)
		if err != nil {
			tb.Fatalf("open %s: %v", path, err)
		}
		tb.Cleanup(func() { s.Close() })
		return s
	}
	open(tb) // create and migrate, so that the raw handle sees the tables
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return storetest.Backend{Open: open, DB: db, Dialect: "sqlite"}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Backend { return backend(t) })
}

func BenchmarkTransition(b *testing.B) { storetest.BenchmarkTransition(b, backend(b)) }

func BenchmarkInFlight10k(b *testing.B) { storetest.BenchmarkInFlight(b, backend(b), 10000) }
