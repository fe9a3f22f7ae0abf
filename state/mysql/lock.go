package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/kupgrade/kupgrade/state/sqlstore"
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

// keepalive is how often the audit lock's idle connection is used, so that the server's
// wait_timeout never closes it (which would drop the lock without anyone noticing).
const keepalive = time.Minute

// auditLocker is AuditLock on MySQL: GET_LOCK without waiting on a connection taken out of the
// pool for as long as the lock is held. The server releases the lock if the process dies.
func auditLocker(db *sql.DB, database string) sqlstore.AuditLocker {
	name := lockName("audit", database)
	return func(ctx context.Context) (func(), bool, error) {
		conn, err := db.Conn(ctx)
		if err != nil {
			return nil, false, fmt.Errorf("audit lock: %w", err)
		}
		ok, err := getLock(ctx, conn, name, 0)
		if err != nil || !ok {
			conn.Close()
			return nil, false, err
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			t := time.NewTicker(keepalive)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					pctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					_ = conn.PingContext(pctx) // a dead connection shows at the next audit write
					cancel()
				}
			}
		}()
		var once sync.Once
		return func() {
			once.Do(func() {
				close(stop)
				<-done
				releaseLock(conn, name)
				conn.Close()
			})
		}, true, nil
	}
}
