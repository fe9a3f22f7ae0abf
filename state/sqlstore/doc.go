// Package sqlstore is the one implementation of state.Store over database/sql, shared by
// state/sqlite and state/mysql. Each of those supplies a Dialect (its migrations and the few
// statements that differ) and its audit lock; the transactions, compare-and-set rules and
// queries live here once, so both stores behave the same.
//
// Guarantees:
//   - Apply, CreateUpgrade, DeleteUpgrade and RenewLease each run in one transaction. The upgrade
//     row is read under a write lock (SQLite: BEGIN IMMEDIATE, asked for with _txlock=immediate;
//     MySQL: SELECT ... FOR UPDATE), every expectation is checked, and every UPDATE carries the
//     value it expects in its WHERE clause and must touch exactly one row. Anything else rolls
//     back and returns an error wrapping state.ErrConflict that says what was expected and found.
//   - Times are written as UTC text "YYYY-MM-DD HH:MM:SS.ffffff" computed in Go from the store's
//     clock (never the server's NOW(), which follows the session time zone), and read back
//     tolerantly as UTC, so rows an operator edits by hand are understood. A time that still does
//     not parse fails no read: the row comes back with that column zero and a *state.RowError
//     (ErrBadRow) naming it; InFlight returns such clusters apart (state.BadRow), and the writes
//     compare only what they can read (an unreadable lease is never judged live or not live).
//   - Migrations are versioned (table schema_migrations), applied in order, each in its own
//     transaction, and safe when several processes open the same new database at once. When
//     none is pending, opening only reads schema_migrations: it takes no write lock.
//   - A write that another process's lock kept out for the whole wait comes back as the
//     dialect's LockErr makes it (SQLite: state.ErrConflict naming the file).
package sqlstore
