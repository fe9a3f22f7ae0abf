package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// Dialect is what differs between SQLite and MySQL. Both use '?' placeholders.
type Dialect struct {
	Name string // "sqlite" or "mysql"
	// Migrations holds NNNN_name.sql files, applied in the order of NNNN.
	Migrations fs.FS
	// MigrationsTable creates schema_migrations if it does not exist.
	MigrationsTable string
	// ForUpdate is appended to the reads that decide a write ("" on SQLite, where the
	// transaction already holds the database's write lock from BEGIN IMMEDIATE).
	ForUpdate string
	// UpsertHost inserts a host row or updates it by (cluster, hostname). Parameters: cluster,
	// hostname, personality, control_plane_version, kubelet_version; a NULL version keeps the
	// stored one.
	UpsertHost string
	// Retryable reports an error after which the whole transaction may simply run again
	// (MySQL deadlock or lock wait timeout, SQLite busy).
	Retryable func(error) bool
	// Duplicate reports a unique-key violation.
	Duplicate func(error) bool
	// Refused reports an error that refuses a value written (MySQL's data errors: invalid
	// UTF-8, too long for its column): the store returns it as state.ErrValueRefused, never run
	// again. nil when the database refuses no value (SQLite).
	Refused func(error) bool
	// NowSQL selects the database's current UTC time with microseconds (MySQL:
	// UTC_TIMESTAMP(6); SQLite: strftime with %f), the one clock leases are judged on.
	NowSQL string
	// MigrateLock serialises migrations between processes on conn (MySQL: GET_LOCK; Galera: a
	// row of schema_migrations); nil when the migration's own transaction does (SQLite).
	MigrateLock func(ctx context.Context, conn *sql.Conn) (unlock func(), err error)
	// Lost reports an error that means the connection was lost (a server that died or
	// restarted); nil when that cannot happen (SQLite).
	Lost func(error) bool
	// LockErr, when set, turns an error that means another process held the database's write
	// lock for the whole wait into the error callers see (SQLite: ErrConflict naming the file);
	// any other error comes back unchanged.
	LockErr func(error) error
}

// AuditLocker is the store's single-auditor lock (see state.Store.AuditLock); nil given to New
// is the replicated lease row of kupgrade_lock (see leaseLock).
type AuditLocker func(ctx context.Context) (*state.AuditHold, error)

// Store implements state.Store over a *sql.DB.
type Store struct {
	db     *sql.DB
	d      *Dialect
	clock  func() time.Time // nil: the database's clock (dbc)
	dbc    *dbClock
	wall   func() time.Time // the machine's clock: Now's last resort, never a judge
	locker AuditLocker
	// Retries counts the transactions run again (see inTx).
	Retries Retries
	log     *slog.Logger
	counter *Counter // nil: not counted (see Counts)
}

var _ state.Store = (*Store)(nil)

// New migrates db to the newest schema, when some migration is not applied yet, and returns a
// Store on it. An up-to-date database is only read: opening it takes no write lock. The Store
// owns db: Close closes it.
func New(ctx context.Context, db *sql.DB, d *Dialect, locker AuditLocker, opts ...state.Option) (*Store, error) {
	o := state.NewOptions(opts...)
	s := &Store{db: db, d: d, clock: o.Clock, dbc: &dbClock{query: d.NowSQL}, wall: o.WallClock, locker: locker, log: o.Log}
	if locker == nil {
		s.locker = s.leaseLocker(auditLockName, o.AuditTTL, o.Log)
	}
	n, err := Pending(ctx, db, d)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return s, nil
	}
	if err := s.migrate(ctx); err != nil {
		return nil, s.lockErr(err)
	}
	return s, nil
}

// lockErr is the dialect's LockErr, when it has one, after valueErr.
func (s *Store) lockErr(err error) error {
	err = s.valueErr(err)
	if err == nil || s.d.LockErr == nil {
		return err
	}
	return s.d.LockErr(err)
}

// valueErr marks an error of the dialect's Refused as state.ErrValueRefused: final.
func (s *Store) valueErr(err error) error {
	if err == nil || s.d.Refused == nil || !s.d.Refused(err) || errors.Is(err, state.ErrValueRefused) {
		return err
	}
	return fmt.Errorf("%w: %w", state.ErrValueRefused, err)
}

// Close closes the database handle.
func (s *Store) Close() error { return s.db.Close() }

// AuditLock takes the single-auditor lock without waiting.
func (s *Store) AuditLock(ctx context.Context) (*state.AuditHold, error) { return s.locker(ctx) }

// maxAttempts bounds the re-runs of a transaction the database aborted to break a deadlock, or
// that Galera's certification refused at commit, or whose connection was lost before COMMIT. A
// fleet's many clusters deadlock on InnoDB's locks more than one cluster does: 12, not 5.
const maxAttempts = 12

// errCommitUnknown: the connection was lost while COMMIT was on its way, so nobody can tell from
// here whether the transaction was committed. Running it again could do it twice; a caller
// that can tell from the database (inTxChecked) finds out instead.
var errCommitUnknown = errors.New("the connection to the database was lost during COMMIT; the transaction may have been committed")

// inTx runs fn in a transaction, commits when it returns nil, and runs it again when the
// database aborted it for a reason that is not ours (deadlock, Galera's certification, busy)
// or the connection was lost before COMMIT: each run reads afresh, so a compare-and-set that
// finds the state changed by then is refused as usual, never retried. An aborted one waits first
// a random time below a bound that doubles (1 ms, 2 ms, ... at most 256 ms): the transactions of
// many clusters that deadlocked together (a fleet) would otherwise meet again at once.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.inTxChecked(ctx, fn, nil)
}

// inTxChecked is inTx with, for a commit whose outcome is unknown (errCommitUnknown), a way to
// find out: committed reads the database (on a new connection, through the failover) and
// reports whether the transaction's writes are there. nil: the error is returned as it is.
func (s *Store) inTxChecked(ctx context.Context, fn func(tx *sql.Tx) error, committed func(ctx context.Context) (bool, error)) error {
	var err error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		err = s.tryTx(ctx, fn)
		if errors.Is(err, errCommitUnknown) && committed != nil {
			done, cerr := committed(ctx)
			if cerr != nil {
				return errors.Join(err, fmt.Errorf("find out whether it was: %w", cerr))
			}
			if done {
				s.Retries.CommitsFound.Add(1)
				s.log.Warn("the connection was lost during COMMIT; the transaction was committed", "err", err)
				return nil
			}
			s.Retries.Lost.Add(1)
			s.log.Warn("the connection was lost during COMMIT; the transaction was not committed: running it again", "err", err)
			continue // not committed: safe to run again
		}
		if err == nil || ctx.Err() != nil {
			break
		}
		switch {
		case s.d.Retryable(err):
			s.Retries.Aborted.Add(1)
			s.log.Debug("the database aborted a transaction (a deadlock, or Galera's certification): running it again", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(rand.Int64N(int64(time.Millisecond) << min(attempt, 8)))):
			}
		case s.lost(err) && !errors.Is(err, errCommitUnknown):
			s.Retries.Lost.Add(1)
			s.log.Debug("the connection was lost before COMMIT: running the transaction again", "err", err)
			time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond) // the failover's next server
		default:
			return s.lockErr(err)
		}
	}
	return s.lockErr(err)
}

// lost reports an error that means the connection was lost (the dialect's Lost).
func (s *Store) lost(err error) bool { return s.d.Lost != nil && s.d.Lost(err) }

// Retries counts the transactions and reads a Store ran again, for tests and benchmarks.
type Retries struct {
	// Aborted: the database aborted them (a deadlock; on Galera, a certification failure).
	Aborted atomic.Int64
	// Lost: their connection was lost before COMMIT, or during it and they were not committed.
	Lost atomic.Int64
	// CommitsFound: their connection was lost during COMMIT and they were committed after all.
	CommitsFound atomic.Int64
	// Reads: reads outside a transaction run again after a lost connection or an abort.
	Reads atomic.Int64
}

func (s *Store) tryTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		// The error that matters is fn's; a failed rollback changes nothing for the caller.
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		if s.lost(err) {
			return fmt.Errorf("commit: %w: %w", errCommitUnknown, err)
		}
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// conflict is the error of a failed compare-and-set.
func conflict(cluster, format string, args ...any) error {
	return fmt.Errorf("%w: cluster %q: %s", state.ErrConflict, cluster, fmt.Sprintf(format, args...))
}

// one checks that an UPDATE or DELETE touched exactly one row (the compare-and-set held).
func one(res sql.Result, err error, cluster, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n != 1 {
		return conflict(cluster, "%s changed underneath (%d rows matched, expected 1)", what, n)
	}
	return nil
}

func notFound(cluster string) error {
	return state.WithNextSteps(fmt.Errorf("%w: no upgrade for cluster %q", state.ErrNotFound, cluster),
		" (start one with `%s`)", state.Next("upgrade", "start", "VERSION"))
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// again runs read, a query outside any transaction, until it returns without a lost connection
// or an abort (the dialect's Lost and Retryable), at most maxAttempts times: a Galera node that
// stops cuts the reads in flight on it ("invalid connection") as it cuts transactions, and a read
// changes nothing, so running it again on the failover's next server is always safe. Any other
// error, an unreadable row's (ErrBadRow) among them, comes back at once with what read returned.
func again[T any](ctx context.Context, s *Store, read func() (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		v, err := read()
		if err == nil || errors.Is(err, state.ErrBadRow) || ctx.Err() != nil || attempt >= maxAttempts ||
			!(s.lost(err) || s.d.Retryable(err)) {
			return v, s.valueErr(err)
		}
		s.Retries.Reads.Add(1)
		s.log.Debug("a read lost its connection or was aborted: reading again", "err", err)
		select {
		case <-ctx.Done():
			return v, errors.Join(err, ctx.Err())
		case <-time.After(time.Duration(attempt) * 100 * time.Millisecond): // the failover's next server
		}
	}
}

// Unavailable reports an error that says the database could not be reached or dropped the
// connection (after the retries above), or aborted the work: nothing about the cluster itself,
// so that a fleet runner hands the cluster back instead of counting it failed.
func (s *Store) Unavailable(err error) bool {
	return err != nil && (s.lost(err) || s.d.Retryable(err) || errors.Is(err, errCommitUnknown))
}
