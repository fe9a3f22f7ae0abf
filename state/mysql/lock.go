package mysql

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
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

// migrateLock makes processes that open the same new database migrate one after the other (one
// server: GET_LOCK; Galera, where GET_LOCK holds on one node only: rowMigrateLock).
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

// rowMigrateLock is migrateLock on a Galera cluster: the row of schema_migrations whose version
// is 0 (no migration's), inserted by the process that migrates and deleted when it is done.
// Two inserts on two nodes cannot both commit (the second finds the row, or loses the
// certification), so one process migrates at a time across the cluster. A row left by a
// process that died while migrating is removed once it is older than migrateWait.
func rowMigrateLock(ctx context.Context, conn *sql.Conn) (func(), error) {
	if _, err := conn.ExecContext(ctx, dialect.MigrationsTable); err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", err)
	}
	holder := "migrating: " + holderName()
	deadline := time.Now().Add(migrateWait)
	for {
		_, err := conn.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (0, ?, UTC_TIMESTAMP(6))", holder)
		if err == nil {
			return func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_, _ = conn.ExecContext(ctx, "DELETE FROM schema_migrations WHERE version = 0 AND name = ?", holder)
			}, nil
		}
		if n := number(err); n != errDupEntry && n != errLockDeadlock {
			return nil, fmt.Errorf("take the migration lock: %w", err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("another process has been migrating for %s (row version 0 of schema_migrations)", migrateWait)
		}
		_, _ = conn.ExecContext(ctx, "DELETE FROM schema_migrations WHERE version = 0 AND applied_at < UTC_TIMESTAMP(6) - INTERVAL ? SECOND",
			int(migrateWait.Seconds()))
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// holderName names this store in a lock row: host, pid and a random suffix.
func holderName() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b))
}
