//go:build integration

package integration_test

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/mysql"
	"github.com/kupgrade/kupgrade/state/storetest"
)

// farSession makes every connection's session time_zone +09:00: the store must not care.
const farSession = "time_zone=%27%2B09%3A00%27"

// mariaDSN is the go-sql-driver DSN of an empty "kupgrade" database with a far session zone:
// the lab's MariaDB, or KUPGRADE_TEST_MYSQL_DSN to run the suite against another server
// (MySQL 8, say) by hand.
func mariaDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv("KUPGRADE_TEST_MYSQL_DSN")
	if dsn == "" {
		dsn = lab.StartMariaDB(tb).DSN()
	}
	if strings.Contains(dsn, "?") {
		return dsn + "&" + farSession
	}
	return dsn + "?" + farSession
}

// mysqlBackend empties the database (the lab's user may not create databases) and returns the
// suite's handle on it.
func mysqlBackend(tb testing.TB, dsn string) storetest.Backend {
	tb.Helper()
	return mysqlBackendOn(tb, []string{dsn}, dsn)
}

// mysqlBackendOn is mysqlBackend over the servers of one replicated database: the n-th store
// the suite opens connects to dsns[n % len(dsns)], the raw handle (hand edits, checks) to raw.
func mysqlBackendOn(tb testing.TB, dsns []string, raw string) storetest.Backend {
	tb.Helper()
	db, err := sql.Open("mysql", raw)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	dropTables(tb, db)
	var parsed []state.DSN
	for _, dsn := range dsns {
		d, err := state.ParseDSN(dsn)
		if err != nil {
			tb.Fatal(err)
		}
		parsed = append(parsed, d)
	}
	var opened atomic.Int64
	open := func(tb testing.TB, opts ...state.Option) state.Store {
		tb.Helper()
		d := parsed[int(opened.Add(1)-1)%len(parsed)]
		s, err := mysql.Open(context.Background(), d, opts...)
		if err != nil {
			tb.Fatalf("open mysql: %v", err)
		}
		tb.Cleanup(func() { s.Close() })
		return s
	}
	open(tb) // create the tables, so that the raw handle sees them
	return storetest.Backend{Open: open, DB: db, Dialect: "mysql"}
}

// dropTables empties the database db is open on (the lab's user may not create databases).
func dropTables(tb testing.TB, db *sql.DB) {
	tb.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = DATABASE()")
	if err != nil {
		tb.Fatal(err)
	}
	var tables, views []string
	for rows.Next() {
		var name, kind string
		if err := rows.Scan(&name, &kind); err != nil {
			tb.Fatal(err)
		}
		if kind == "VIEW" { // kube_upgrade_lease, since schema 0008
			views = append(views, "`"+name+"`")
		} else {
			tables = append(tables, "`"+name+"`")
		}
	}
	rows.Close()
	if len(views) > 0 {
		if _, err := conn.ExecContext(ctx, "DROP VIEW "+strings.Join(views, ", ")); err != nil {
			tb.Fatalf("drop views: %v", err)
		}
	}
	if len(tables) > 0 {
		for _, q := range []string{"SET FOREIGN_KEY_CHECKS = 0", "DROP TABLE " + strings.Join(tables, ", "), "SET FOREIGN_KEY_CHECKS = 1"} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				tb.Fatalf("%s: %v", q, err)
			}
		}
	}
}

// TestMySQLStoreConformance runs the conformance suite that state/sqlite passes in its unit
// tests against a real MariaDB, with the session in a zone far from UTC.
func TestMySQLStoreConformance(t *testing.T) {
	t.Parallel()
	dsn := mariaDSN(t)
	storetest.Run(t, func(t *testing.T) storetest.Backend { return mysqlBackend(t, dsn) })
}

func BenchmarkMySQLTransition(b *testing.B) {
	storetest.BenchmarkTransition(b, mysqlBackend(b, mariaDSN(b)))
}

func BenchmarkMySQLInFlight10k(b *testing.B) {
	storetest.BenchmarkInFlight(b, mysqlBackend(b, mariaDSN(b)), 10000)
}
