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
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

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
		Retryable: retryable,
		Duplicate: func(err error) bool {
			return code(err) == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code(err) == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
		},
	}
}()

// code is the extended SQLite result code of err, 0 when err is not SQLite's.
func code(err error) int {
	var e *msqlite.Error
	if !errors.As(err, &e) {
		return 0
	}
	return e.Code()
}

// retryable: the transaction may simply run again. A plain SQLITE_BUSY is not: SQLite's busy
// handler has already waited the whole busy_timeout for the write lock (see busy).
func retryable(err error) bool {
	switch c := code(err); {
	case c&0xff == sqlite3.SQLITE_LOCKED:
		return true
	case c == sqlite3.SQLITE_BUSY_SNAPSHOT, c == sqlite3.SQLITE_BUSY_RECOVERY:
		return true
	}
	return false
}

// Store is the SQLite state.Store.
type Store struct {
	*sqlstore.Store
}

// Open opens (creating it, private to its owner, if needed) the database at path, migrating it
// when some migration is not applied yet. A writer waits up to Options.LockWait for a write
// lock that another process holds, then fails with ErrConflict naming the file. With
// state.ReadOnly(), the connections only read (query_only): they answer while another process
// holds the write lock, as long as the schema is up to date (it is created or migrated first,
// which needs the write lock, when it is not).
func Open(ctx context.Context, path string, opts ...state.Option) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: open sqlite: empty path (e.g. --db sqlite:kupgrade.db)", state.ErrBadInput)
	}
	if dir := filepath.Dir(path); dir != "." {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("%w: open sqlite %s: folder %s: %w", state.ErrBadInput, path, dir, err)
		}
	}
	o := state.NewOptions(opts...)
	if err := createPrivate(path, o.Log); err != nil {
		return nil, err
	}
	d := *dialect
	d.LockErr = func(err error) error { return busy(path, o.LockWait, err) }
	if o.ReadOnly {
		if err := migrateFirst(ctx, path, &d, opts); err != nil {
			return nil, err
		}
	}
	conn, counter := sqlstore.Counting(sqlstore.DSNConnector(&msqlite.Driver{}, dsn(path, o)))
	db := sql.OpenDB(conn)
	s, err := sqlstore.New(ctx, db, &d, flockLocker(path+".audit.lock"), opts...)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	s.CountWith(counter)
	return &Store{Store: s}, nil
}

// migrateFirst creates or migrates the schema through a writable handle when some migration
// is pending, so that the read-only handle opened next finds it up to date.
func migrateFirst(ctx context.Context, path string, d *sqlstore.Dialect, opts []state.Option) error {
	o := state.NewOptions(opts...)
	db, err := sql.Open("sqlite", dsn(path, o))
	if err != nil {
		return fmt.Errorf("open sqlite %s: %w", path, err)
	}
	n, err := sqlstore.Pending(ctx, db, d)
	db.Close()
	if err != nil {
		return fmt.Errorf("open sqlite %s: %w", path, err)
	}
	if n == 0 {
		return nil
	}
	w, err := Open(ctx, path, append(opts, func(o *state.Options) { o.ReadOnly = false })...)
	if err != nil {
		return err
	}
	return w.Close()
}

// busy turns SQLITE_BUSY, which SQLite returns once its busy handler has waited wait for the
// write lock, into ErrConflict naming the file and who holds the lock.
func busy(path string, wait time.Duration, err error) error {
	if code(err)&0xff != sqlite3.SQLITE_BUSY {
		return err
	}
	return fmt.Errorf("%w: database %s is locked: another process holds its write lock (a sqlite3 shell "+
		"with an open transaction, or another kupgrade writing); gave up after waiting %s, nothing was written; "+
		"retry once it is released: %w", state.ErrConflict, path, wait, err)
}

// dsn is modernc's DSN for path: WAL (readers never wait for the writer), a busy timeout of
// o.LockWait, foreign keys, and BEGIN IMMEDIATE for every transaction (the store's
// transactions all write, or read to decide a write). A read-only store's connections are
// query_only, with deferred transactions: SQLite refuses any write on them, and they never take
// the write lock.
func dsn(path string, o state.Options) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.LockWait.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	if o.ReadOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}
