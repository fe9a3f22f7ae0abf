package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// leaseReader is what withLeaseHint needs of the store.
type leaseReader interface {
	Lease(ctx context.Context, cluster string) (*state.Lease, error)
	Now() time.Time
}

// withLeaseHint adds to a conflict who holds the cluster's lease and when it expires, so the
// person knows whether to wait, or to use --force.
func withLeaseHint(ctx context.Context, st leaseReader, cluster string, err error) error {
	if !errors.Is(err, state.ErrConflict) {
		return err
	}
	l, lerr := st.Lease(ctx, cluster)
	if lerr != nil || l == nil {
		return err
	}
	now := st.Now()
	if !l.Live(now) {
		return err
	}
	return fmt.Errorf("%w\n  the lease is held by %s for %s and expires at %s (in %s); if that process is gone, wait for the lease to expire or pass --force",
		err, l.Owner, l.Operation, l.ExpiresAt.UTC().Format(time.RFC3339), l.ExpiresAt.Sub(now).Round(time.Second))
}
