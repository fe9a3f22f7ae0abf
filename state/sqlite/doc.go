// Package sqlite is kupgrade's embedded store (`--db sqlite:PATH`): state.Store on one SQLite
// file through modernc.org/sqlite (pure Go, no cgo), created on first use.
//
// Guarantees: WAL journal (readers never block the writer), a busy timeout, foreign keys on,
// and every write transaction begins IMMEDIATE, so concurrent writers, in this process or
// another, queue for the write lock instead of failing when a read lock would have to be
// upgraded. The schema is migrated on Open. AuditLock is an exclusive flock on PATH.audit.lock,
// so one auditor runs per database file on a machine. The transactions and queries are those
// of state/sqlstore, shared with state/mysql.
package sqlite
