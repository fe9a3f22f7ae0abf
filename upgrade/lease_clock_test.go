package upgrade

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// fakeClock is the keeper's clock seam: time moves only when the test says.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// lateRenewer answers a renewal lag after it was sent (on the fake clock): a slow database.
type lateRenewer struct {
	clock *fakeClock
	lag   time.Duration
}

func (r lateRenewer) RenewLease(context.Context, string, string, time.Duration) (state.Lease, error) {
	r.clock.set(r.clock.now().Add(r.lag))
	return state.Lease{}, nil
}

// A renewal vouches for the lease for a TTL from when it was sent, not from when its late
// answer came: the database counted the TTL from when it received it, so past sent+TTL the lease
// may have expired there and the gate must be closed.
func TestRenewalCountsFromWhenItWasSent(t *testing.T) {
	const ttl = 30 * time.Second
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{t: t0}
	k := newKeeper(ttl, 0, t0, clock.now)
	sent := t0.Add(ttl / 2)
	clock.set(sent)
	if k.renewOnce(t.Context(), lateRenewer{clock: clock, lag: ttl / 3}, "c1", "me") {
		t.Fatal("a successful renewal ended the renewing")
	}
	clock.set(sent.Add(ttl - time.Millisecond))
	if err := k.check(); err != nil {
		t.Fatalf("gate closed within a TTL of the renewal's sending: %v", err)
	}
	clock.set(sent.Add(ttl))
	if k.check() == nil {
		t.Fatal("gate open a TTL after the renewal was sent: its late answer kept it open past the lease's expiry")
	}
}

// The first acquisition counts from when it was sent too (Keep's sent), even when the keeper
// starts later, once the answer came.
func TestAcquisitionCountsFromWhenItWasSent(t *testing.T) {
	const ttl = 30 * time.Second
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{t: t0.Add(ttl / 2)} // the acquisition's answer came half a TTL late
	k := newKeeper(ttl, 0, t0, clock.now)
	if err := k.check(); err != nil {
		t.Fatalf("gate closed within the acquisition's TTL: %v", err)
	}
	clock.set(t0.Add(ttl))
	if k.check() == nil {
		t.Fatal("gate open a TTL after the acquisition was sent")
	}
}
