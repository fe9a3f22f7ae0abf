package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// dbClock is the database's clock (docs/states.md: a lease's expiry is written and judged on one
// clock). Every transaction that writes or judges a time reads the database's own time first, so
// two kupgrade processes whose wall clocks disagree by minutes still agree on whether a lease is
// live. Between transactions, Now advances the last reading with this process's monotonic clock,
// which a wall-clock step (NTP, an operator's `date -s`) does not move.
type dbClock struct {
	query string // returns the database's UTC time: see Dialect.NowSQL

	mu   sync.Mutex
	db   time.Time // the database's time at the last reading
	mono time.Time // this process's clock (with its monotonic reading) at that moment
}

// queryer is what reads the time: a *sql.Tx inside a transaction, the *sql.DB outside.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// read asks the database for its time and remembers it.
func (c *dbClock) read(ctx context.Context, q queryer) (time.Time, error) {
	var t nullTime
	if err := q.QueryRowContext(ctx, c.query).Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("read the database's clock: %w", err)
	}
	if !t.Valid {
		return time.Time{}, fmt.Errorf("read the database's clock: it returned NULL")
	}
	now := t.Time.UTC().Truncate(time.Microsecond)
	c.mu.Lock()
	c.db, c.mono = now, time.Now()
	c.mu.Unlock()
	return now, nil
}

// since is the database's time now, as far as this process can tell without asking: the last
// reading plus the monotonic time elapsed since.
func (c *dbClock) since() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mono.IsZero() {
		return time.Time{}, false
	}
	return c.db.Add(time.Since(c.mono)).Truncate(time.Microsecond), true
}

// clockTimeout bounds the reading Now makes when it has none yet: Now has no context.
const clockTimeout = 5 * time.Second

// Now is the store's time in UTC, truncated to the microsecond the columns keep. With a clock
// from state.WithClock (tests) it is that clock; otherwise it is the database's.
func (s *Store) Now() time.Time {
	if s.clock != nil {
		return s.clock().UTC().Truncate(time.Microsecond)
	}
	if t, ok := s.dbc.since(); ok {
		return t
	}
	ctx, cancel := context.WithTimeout(context.Background(), clockTimeout)
	defer cancel()
	if t, err := s.dbc.read(ctx, s.db); err == nil {
		return t
	}
	// Unreachable database: every decision that matters is taken again inside a transaction,
	// on the database's clock, so this reading only ever feeds a message or a pre-check.
	return s.wall().UTC().Truncate(time.Microsecond)
}

// txNow is the time a transaction writes and judges with: the database's own, read inside it.
func (s *Store) txNow(ctx context.Context, tx *sql.Tx) (time.Time, error) {
	if s.clock != nil {
		return s.Now(), nil
	}
	return s.dbc.read(ctx, tx)
}
