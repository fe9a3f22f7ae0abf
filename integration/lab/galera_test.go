//go:build integration

package lab

import (
	"database/sql"
	"testing"
)

// A row written on one node is read on the others, and a node killed and started again rejoins
// the cluster with what was written while it was down.
func TestGalera(t *testing.T) {
	t.Parallel()
	RequireGalera(t)
	g := StartGalera(t)
	ctx := t.Context()
	dbs := make([]*sql.DB, len(g.Nodes))
	for i, dsn := range g.DSNs() {
		db, err := sql.Open("mysql", dsn+"&wsrep_sync_wait=7")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	if _, err := dbs[0].ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(64))"); err != nil {
		t.Fatalf("create table: %v", err)
	}
	if _, err := dbs[0].ExecContext(ctx, "INSERT INTO t VALUES (1, 'written on node 1')"); err != nil {
		t.Fatalf("insert: %v", err)
	}
	if err := g.Nodes[1].Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := dbs[2].ExecContext(ctx, "INSERT INTO t VALUES (2, 'written on node 3')"); err != nil {
		t.Fatalf("insert on node 3 with node 2 down: %v", err)
	}
	if err := g.Nodes[1].Start(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := dbs[1].QueryRowContext(ctx, "SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("node 2 after its restart: %d rows, %v; want 2", n, err)
	}
}
