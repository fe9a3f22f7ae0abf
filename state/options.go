package state

import "time"

// Option configures a Store when it is opened (sqlite.Open, mysql.Open).
type Option func(*Options)

// Options is what the Option functions set; store implementations read it through NewOptions.
type Options struct {
	// Clock returns the current time; the store converts it to UTC before it writes or compares.
	// nil (the default) is the database's own clock, read in every transaction that writes or
	// judges a time, so that processes whose wall clocks disagree still agree on a lease.
	Clock func() time.Time
}

// WithClock replaces the store's clock (tests move time forward to expire leases).
func WithClock(clock func() time.Time) Option {
	return func(o *Options) { o.Clock = clock }
}

// NewOptions applies opts over the defaults (the database's clock).
func NewOptions(opts ...Option) Options {
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}
