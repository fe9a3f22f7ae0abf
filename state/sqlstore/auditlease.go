package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// auditLockName is the kupgrade_lock row of the single auditor.
const auditLockName = "audit"

// leaseLocker is a single-holder lock kept as a row of kupgrade_lock (name, holder, generation,
// expires_at), with a lease judged on the database's clock like an operation's: taken when the
// row is absent, expired or already ours, renewed every third of ttl while held, deleted on
// release. Unlike GET_LOCK, which a Galera cluster does not replicate (each node grants it on
// its own), the row is written in compare-and-set transactions that every node certifies, so
// two processes on two nodes never both hold it. A holder killed without releasing is taken over
// once ttl has passed since its last renewal.
func (s *Store) leaseLocker(name string, ttl time.Duration, log *slog.Logger) AuditLocker {
	return func(ctx context.Context) (*state.AuditHold, error) {
		holder := holderID()
		gen, ok, err := s.takeLock(ctx, name, holder, ttl)
		if err != nil || !ok {
			return nil, err
		}
		l := &heldLock{s: s, name: name, holder: holder, gen: gen, ttl: ttl, log: log,
			stop: make(chan struct{}), done: make(chan struct{}), lost: make(chan struct{})}
		go l.renew()
		return state.NewAuditHold(l.release, l.lost), nil
	}
}

// holderID names this process for the lock row: host, pid and a random suffix (two Stores of
// one process are two holders).
func holderID() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b))
}

// takeLock takes the named lock for holder unless another holder's lease on it is live; it
// returns the lock's new generation.
func (s *Store) takeLock(ctx context.Context, name, holder string, ttl time.Duration) (gen int64, ok bool, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		now, err := s.txNow(ctx, tx)
		if err != nil {
			return err
		}
		var cur string
		var exp nullTime
		err = tx.QueryRowContext(ctx, "SELECT holder, generation, expires_at FROM kupgrade_lock WHERE name = ?"+s.d.ForUpdate,
			name).Scan(&cur, &gen, &exp)
		switch {
		case isNoRows(err):
			gen, ok = 1, true
			_, err = tx.ExecContext(ctx, "INSERT INTO kupgrade_lock (name, holder, generation, acquired_at, expires_at) VALUES (?, ?, 1, ?, ?)",
				name, holder, fmtTime(now), fmtTime(now.Add(ttl)))
			if err != nil && s.d.Duplicate(err) {
				ok, err = false, nil // taken by another at the same moment
			}
			return err
		case err != nil:
			return fmt.Errorf("read lock %s: %w", name, err)
		case exp.Valid && now.Before(exp.Time) && cur != holder:
			ok = false
			return nil
		}
		res, err := tx.ExecContext(ctx, `UPDATE kupgrade_lock SET holder = ?, generation = generation + 1, acquired_at = ?, expires_at = ?
			WHERE name = ? AND generation = ?`, holder, fmtTime(now), fmtTime(now.Add(ttl)), name, gen)
		gen, ok = gen+1, true
		return one(res, err, name, "lock "+name)
	})
	if err != nil {
		return 0, false, fmt.Errorf("take lock %s: %w", name, err)
	}
	return gen, ok, nil
}

// heldLock is a lock taken by takeLock, renewed until released or lost.
type heldLock struct {
	s                *Store
	name, holder     string
	gen              int64
	ttl              time.Duration
	log              *slog.Logger
	stop, done, lost chan struct{}
}

// renew extends the lease every ttl/3. The lock is lost when a renewal finds the row gone or
// another's (it was taken over), or when no renewal has succeeded for ttl by this process's
// monotonic clock (the lease may have expired on the database's, and another taken it).
func (l *heldLock) renew() {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
		err := l.s.renewLock(ctx, l.name, l.holder, l.gen, l.ttl)
		cancel()
		switch {
		case err == nil:
			last = time.Now()
			continue
		case errors.Is(err, state.ErrConflict):
		case time.Since(last) < l.ttl:
			l.log.Warn("renew the lock; trying again", "lock", l.name, "err", err)
			continue
		}
		l.log.Warn("lost the lock", "lock", l.name, "holder", l.holder, "err", err)
		close(l.lost)
		return
	}
}

// release stops the renewals and deletes the row if it is still ours.
func (l *heldLock) release() {
	close(l.stop)
	<-l.done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// If this fails the lease expires on its own after ttl.
	_ = l.s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM kupgrade_lock WHERE name = ? AND holder = ? AND generation = ?", l.name, l.holder, l.gen)
		return err
	})
}

// renewLock extends holder's lease on the lock by ttl from now; ErrConflict when the lock is no
// longer holder's at generation gen.
func (s *Store) renewLock(ctx context.Context, name, holder string, gen int64, ttl time.Duration) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		now, err := s.txNow(ctx, tx)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "UPDATE kupgrade_lock SET expires_at = ? WHERE name = ? AND holder = ? AND generation = ?",
			fmtTime(now.Add(ttl)), name, holder, gen)
		return one(res, err, name, "lock "+name)
	})
}
