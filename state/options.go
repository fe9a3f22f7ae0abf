package state

import (
	"log/slog"
	"time"
)

// Option configures a Store when it is opened (sqlite.Open, mysql.Open).
type Option func(*Options)

// Options is what the Option functions set; store implementations read it through NewOptions.
type Options struct {
	// Clock returns the current time; the store converts it to UTC before it writes or compares.
	// nil (the default) is the database's own clock, read in every transaction that writes or
	// judges a time, so that processes whose wall clocks disagree still agree on a lease.
	Clock func() time.Time
	// WallClock is this machine's clock as the process reads it (default time.Now). The store
	// judges nothing by it: it is the last resort of Now while the database cannot be asked.
	// Tests shift it to play a machine whose clock is wrong.
	WallClock func() time.Time
	// Log receives the database driver's own diagnostics (MySQL: a dropped connection), with
	// any password removed. Default: slog.Default().
	Log *slog.Logger
	// LockWait is how long a write waits for the database's write lock that another process
	// holds before it fails with ErrConflict (SQLite; on MySQL the server's
	// innodb_lock_wait_timeout decides). Default: DefaultLockWait.
	LockWait time.Duration
	// ReadOnly opens the store for reading only: it takes no write lock, not even to migrate a
	// schema that is already up to date, so it answers while another process holds the write
	// lock. Writes then fail. A missing or old schema is still created or migrated first.
	ReadOnly bool
	// AuditTTL is how long the single-auditor lock's lease lasts without a renewal where it is
	// a row of the database (MySQL, Galera): a dead auditor is taken over after at most that
	// long. Default: DefaultAuditTTL.
	AuditTTL time.Duration
}

// DefaultAuditTTL is Options.AuditTTL when no WithAuditTTL is given.
const DefaultAuditTTL = 30 * time.Second

// WithAuditTTL sets the lease of the single-auditor lock (see Options.AuditTTL).
func WithAuditTTL(d time.Duration) Option {
	return func(o *Options) { o.AuditTTL = d }
}

// DefaultLockWait is Options.LockWait when no WithLockWait is given.
const DefaultLockWait = 30 * time.Second

// WithWallClock replaces the machine's clock the store falls back on (see Options.WallClock).
func WithWallClock(clock func() time.Time) Option {
	return func(o *Options) { o.WallClock = clock }
}

// WithClock replaces the store's clock (tests move time forward to expire leases).
func WithClock(clock func() time.Time) Option {
	return func(o *Options) { o.Clock = clock }
}

// WithLog sends the driver's diagnostics to l.
func WithLog(l *slog.Logger) Option {
	return func(o *Options) { o.Log = l }
}

// WithLockWait sets how long a write waits for another process's write lock.
func WithLockWait(d time.Duration) Option {
	return func(o *Options) { o.LockWait = d }
}

// ReadOnly opens the store for the commands that only read (see Options.ReadOnly).
func ReadOnly() Option {
	return func(o *Options) { o.ReadOnly = true }
}

// NewOptions applies opts over the defaults (the database's clock, slog.Default(), DefaultLockWait).
func NewOptions(opts ...Option) Options {
	o := Options{}
	for _, opt := range opts {
		opt(&o)
	}
	if o.WallClock == nil {
		o.WallClock = time.Now
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.AuditTTL <= 0 {
		o.AuditTTL = DefaultAuditTTL
	}
	if o.LockWait <= 0 {
		o.LockWait = DefaultLockWait
	}
	return o
}
