//go:build integration

package lab

import (
	"database/sql"
	"testing"
)

// The DSN reaches a database kupgrade can create tables in, as the MySQL store will.
func TestMariaDB(t *testing.T) {
	t.Parallel()
	m := StartMariaDB(t)
	db, err := sql.Open("mysql", m.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, "CREATE TABLE kube_upgrade (id INT PRIMARY KEY, state VARCHAR(64))"); err != nil {
		t.Fatalf("create table: %v", err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO kube_upgrade VALUES (1, 'upgrade-started')"); err != nil {
		t.Fatalf("insert: %v", err)
	}
	var state string
	if err := db.QueryRowContext(ctx, "SELECT state FROM kube_upgrade WHERE id = 1").Scan(&state); err != nil || state != "upgrade-started" {
		t.Fatalf("select: %q, %v", state, err)
	}
}
