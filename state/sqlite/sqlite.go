package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// busyTimeoutMS is how long a writer waits for another's write lock before SQLITE_BUSY.
const busyTimeoutMS = 10000

var dialect = func() *sqlstore.Dialect {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err)
	}
	return &sqlstore.Dialect{
		Name:       "sqlite",
		Migrations: sub,
		NowSQL:     "SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')",
		MigrationsTable: `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
		UpsertHost: `INSERT INTO host (cluster, hostname, personality, control_plane_version, kubelet_version)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (cluster, hostname) DO UPDATE SET
			personality = excluded.personality,
			control_plane_version = COALESCE(excluded.control_plane_version, host.control_plane_version),
			kubelet_version = COALESCE(excluded.kubelet_version, host.kubelet_version)`,
		Retryable: func(err error) bool { return code(err) == sqlite3.SQLITE_BUSY || code(err) == sqlite3.SQLITE_LOCKED },
		Duplicate: func(err error) bool {
			return code(err) == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code(err) == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
		},
	}
}()

// code is the extended SQLite result code of err (0 when err is not SQLite's). The primary code
// is its low byte; SQLITE_BUSY and SQLITE_LOCKED are compared on that.
func code(err error) int {
	var e *msqlite.Error
	if !errors.As(err, &e) {
		return 0
	}
	switch c := e.Code(); c & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return c & 0xff
	default:
		return c
	}
}

// Store is the SQLite state.Store.
type Store struct {
	*sqlstore.Store
}

// Open opens (creating it and its folder's file if needed) the database at path and migrates it.
func Open(ctx context.Context, path string, opts ...state.Option) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: open sqlite: empty path (e.g. --db sqlite:kupgrade.db)", state.ErrBadInput)
	}
	if dir := filepath.Dir(path); dir != "." {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("%w: open sqlite %s: folder %s: %w", state.ErrBadInput, path, dir, err)
		}
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	s, err := sqlstore.New(ctx, db, dialect, flockLocker(path+".audit.lock"), opts...)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return &Store{Store: s}, nil
}

// dsn is modernc's DSN for path: WAL, busy timeout, foreign keys, and BEGIN IMMEDIATE for every
// transaction (the store's transactions all write, or read to decide a write).
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}
