package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"
)

// lockName scopes a GET_LOCK name to the database: locks are server-wide, and one server may
// hold several kupgrade databases. Names longer than MySQL's 64 characters are hashed.
func lockName(kind, database string) string {
	name := "kupgrade-" + kind + ":" + database
	if len(name) <= 64 {
		return name
	}
	sum := sha256.Sum256([]byte(database))
	return "kupgrade-" + kind + ":" + hex.EncodeToString(sum[:])[:32]
}

// getLock runs GET_LOCK(name, wait) on conn: true when taken, false when another session has it.
func getLock(ctx context.Context, conn *sql.Conn, name string, wait time.Duration) (bool, error) {
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, ?)", name, int(wait.Seconds())).Scan(&got); err != nil {
		return false, fmt.Errorf("GET_LOCK %s: %w", name, err)
	}
	if !got.Valid {
		return false, fmt.Errorf("GET_LOCK %s: the server returned NULL", name)
	}
	return got.Int64 == 1, nil
}

func releaseLock(conn *sql.Conn, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// If this fails, closing the connection below releases the lock anyway.
	_, _ = conn.ExecContext(ctx, "DO RELEASE_LOCK(?)", name)
}

// migrateLock makes processes that open the same new database migrate one after the other.
// On a Galera cluster GET_LOCK holds on one node only: two processes opening a new database
// through two nodes at the same moment may both migrate, and one of them then fails on the
// other's table or row (Open fails; the next Open finds the schema up to date).
func migrateLock(ctx context.Context, conn *sql.Conn) (func(), error) {
	var db string
	if err := conn.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&db); err != nil {
		return nil, fmt.Errorf("read database name: %w", err)
	}
	name := lockName("migrate", db)
	// Wait a minute in all, in slices well under the connection's read timeout: the server
	// sends nothing while GET_LOCK waits.
	for range int(migrateWait / migrateSlice) {
		ok, err := getLock(ctx, conn, name, migrateSlice)
		if err != nil {
			return nil, err
		}
		if ok {
			return func() { releaseLock(conn, name) }, nil
		}
	}
	return nil, fmt.Errorf("another process has been migrating %s for %s (lock %s)", db, migrateWait, name)
}

// How long Open waits for another process's migration, and for how long each GET_LOCK waits.
const (
	migrateWait  = time.Minute
	migrateSlice = 10 * time.Second
)
