// Package sqlite is kupgrade's embedded store (`--db sqlite:PATH`): state.Store on one SQLite
// file through modernc.org/sqlite (pure Go, no cgo), created on first use.
//
// Guarantees: WAL journal, so readers never wait for the writer; foreign keys on; every write
// transaction begins IMMEDIATE, so concurrent writers, in this process or another, queue for
// the write lock instead of failing when a read lock would have to be upgraded. The schema is
// migrated on Open only when a migration is pending: opening an up-to-date database takes no
// lock, so `upgrade show` answers while an operator's sqlite3 shell holds the write lock. A
// writer waits for that lock up to Options.LockWait (SQLite's busy timeout), then fails with
// state.ErrConflict naming the file and that another process holds its write lock. A store
// opened with state.ReadOnly() refuses every write (query_only). AuditLock is an exclusive flock
// on PATH.audit.lock, so one auditor runs per database file on a machine. The transactions and
// queries are those of state/sqlstore, shared with state/mysql.
package sqlite
