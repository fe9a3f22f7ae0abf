// Package mysql is kupgrade's shared store (`--db mysql://user:pass@host:port/db`, or the
// go-sql-driver form user:pass@tcp(host:port)/db): state.Store on MySQL 8 or MariaDB 10.11
// through go-sql-driver/mysql, for several operators, machines and watchers on one database.
//
// Guarantees: InnoDB tables with DATETIME(6) columns holding UTC; the store writes times it
// computed in Go and never uses NOW(), so the session time_zone (whatever the DSN or the server
// sets) changes nothing. Rows that decide a write are read with SELECT ... FOR UPDATE inside the
// write's transaction; RowsAffected counts matched rows (clientFoundRows), so a compare-and-set
// that writes an unchanged value still counts as having matched. Migrations run under
// GET_LOCK, one process at a time. AuditLock is GET_LOCK on a dedicated connection, held until
// released or until that connection (the process) dies. The transactions and queries are those
// of state/sqlstore, shared with state/sqlite.
package mysql
