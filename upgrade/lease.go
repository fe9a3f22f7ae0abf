package upgrade

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// Owner names this process as a lease holder: host:pid:random, unique across machines.
func Owner() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("%s:%d:%08x", h, os.Getpid(), rand.Uint32())
}

// Keeper renews a lease every third of its TTL until stopped, each renewal bounded by a deadline
// on this process's monotonic clock. It never cancels the work (docs/states.md: the database
// never kills kubeadm): it only answers Gate, which the runner asks before it starts each task,
// each retry attempt and each loop item. The gate closes for good when the lease is gone or
// another's, and stays closed once a TTL has passed since the last successful renewal was SENT
// (the lease may have expired on the database's clock, and someone may be taking it over); a
// later successful renewal, which proves the lease is still ours, opens it again.
type Keeper struct {
	done  chan struct{}
	ttl   time.Duration
	every time.Duration    // between renewals, and the deadline of each
	wait  time.Duration    // how long Gate waits for an unconfirmed lease to be confirmed again
	now   func() time.Time // the clock validity is counted on: time.Now, but for tests
	stop  context.CancelFunc

	mu      sync.Mutex
	lostErr error     // the lease is gone or another's: final
	lastOK  time.Time // when the last successful renewal (or the acquisition) was sent, monotonic
	lastErr error     // the last renewal's error, for Gate's message
}

// Renewer renews a lease: the store's operation leases, or a fleet runner's claims.
type Renewer interface {
	RenewLease(ctx context.Context, cluster, owner string, ttl time.Duration) (state.Lease, error)
}

// Keep starts renewing the lease that owner has just acquired; Stop ends it. sent is when the
// acquisition was sent to the database: the lease is counted valid for a TTL from then, never
// from when its answer came. A fleet runner keeps its claim on a cluster with it, and gates each
// step of the cluster's run on it.
func Keep(ctx context.Context, st Renewer, cluster, owner string, ttl, wait time.Duration, sent time.Time) *Keeper {
	k := newKeeper(ttl, wait, sent, time.Now)
	kctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	k.stop = stop
	go k.renewEvery(kctx, st, cluster, owner)
	return k
}

func newKeeper(ttl, wait time.Duration, sent time.Time, now func() time.Time) *Keeper {
	return &Keeper{done: make(chan struct{}), ttl: ttl, wait: wait, lastOK: sent, now: now,
		every: max(ttl/3, 10*time.Millisecond)}
}

// renewEvery renews the lease every third of its TTL until Stop, or until it is lost.
func (k *Keeper) renewEvery(kctx context.Context, st Renewer, cluster, owner string) {
	defer close(k.done)
	t := time.NewTicker(k.every)
	defer t.Stop()
	for {
		select {
		case <-kctx.Done():
			return
		case <-t.C:
		}
		if k.renewOnce(kctx, st, cluster, owner) {
			return
		}
	}
}

// renewOnce sends one renewal and records it; it reports whether renewing is over. A renewal
// that succeeds vouches for the lease from when it was SENT: the database counts the TTL from
// when it received it, later, so a late answer never keeps the gate open past the lease's
// expiry on the database's clock.
func (k *Keeper) renewOnce(ctx context.Context, st Renewer, cluster, owner string) bool {
	sent := k.now()
	rctx, cancel := context.WithTimeout(ctx, k.every) // a hung renewal must not outlive the lease
	_, err := st.RenewLease(rctx, cluster, owner, k.ttl)
	cancel()
	if ctx.Err() != nil {
		return true
	}
	return k.renewed(cluster, sent, err)
}

// renewed records the outcome of a renewal sent at sent; it reports whether renewing is over
// (the lease is lost).
func (k *Keeper) renewed(cluster string, sent time.Time, err error) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case err == nil:
		if sent.After(k.lastOK) {
			k.lastOK = sent
		}
		k.lastErr = nil
		return false
	case errors.Is(err, state.ErrConflict):
		k.lostErr = fmt.Errorf("lease of cluster %s lost: another process failed or took over the operation: %w", cluster, err)
		return true
	default:
		k.lastErr = fmt.Errorf("renew lease of cluster %s: %w", cluster, err)
		return false
	}
}

// Gate returns nil once this process may start new work under the lease. While the lease is
// unconfirmed (the database does not answer) it waits, up to wait, for a renewal to succeed: a
// database outage holds new work back instead of failing it. A lease lost to another process
// refuses at once.
func (k *Keeper) Gate(ctx context.Context) error {
	deadline := time.Now().Add(k.wait)
	for {
		err := k.check()
		if err == nil || k.Lost() != nil || !time.Now().Before(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(gatePoll):
		}
	}
}

// gatePoll is how often a waiting Gate looks again.
const gatePoll = 50 * time.Millisecond

// check is nil while the lease is ours and confirmed within its TTL.
func (k *Keeper) check() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.lostErr != nil {
		return k.lostErr
	}
	if since := k.now().Sub(k.lastOK); since >= k.ttl {
		return fmt.Errorf("lease not confirmed for %s (its TTL is %s): no new work starts until it is: %w",
			since.Round(time.Second), k.ttl, k.lastErr)
	}
	return nil
}

// Lost is why the lease was lost to another process, if it was.
func (k *Keeper) Lost() error { k.mu.Lock(); defer k.mu.Unlock(); return k.lostErr }

// Stop ends the renewals (once the outcome is recorded) and returns why the lease was lost to
// another process, if it was.
func (k *Keeper) Stop() error {
	k.stop()
	<-k.done
	return k.Lost()
}
