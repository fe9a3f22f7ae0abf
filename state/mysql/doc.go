// Package mysql is kupgrade's shared store (`--db mysql://user:pass@host:port/db`, or the
// go-sql-driver form user:pass@tcp(host:port)/db): state.Store on MySQL 8 or MariaDB 10.11
// through go-sql-driver/mysql, for several operators, machines and watchers on one database.
//
// Guarantees: InnoDB tables with DATETIME(6) columns holding UTC; the store writes times it
// computed in Go and never uses NOW(), so the session time_zone (whatever the DSN or the server
// sets) changes nothing. Rows that decide a write are read with SELECT ... FOR UPDATE inside the
// write's transaction; RowsAffected counts matched rows (clientFoundRows), so a compare-and-set
// that writes an unchanged value still counts as having matched. Migrations run one process at
// a time: under GET_LOCK on one server, under a row of schema_migrations (version 0) on Galera,
// whose nodes grant GET_LOCK each on its own. AuditLock is a row of kupgrade_lock with a lease
// on the database's clock (GET_LOCK is not replicated by Galera), renewed while held and taken
// over once it expires.
//
// Galera: a DSN may name several nodes (mysql://u:p@db1,db2,db3/kupgrade); a new connection goes
// to the node the last one reached, else to the next that answers and takes queries; a node
// that refuses a statement (1047, out of service) has every connection to it dropped. On a
// Galera node (wsrep_on) every session runs with wsrep_sync_wait=7, so a statement sees what
// any node committed before it. A transaction that loses Galera's certification at commit (1213,
// like an InnoDB deadlock) runs again from its first read, so a compare-and-set that then finds
// the state changed is refused as on one server. The transactions and queries are those
// of state/sqlstore, shared with state/sqlite.
package mysql
