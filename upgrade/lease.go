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

// keeper renews a lease every third of its TTL until stopped. If a renewal finds the lease gone
// or taken (an auditor or `recover --force` failed the operation), it cancels the work's context,
// so that the step stops instead of racing the one who failed it.
type keeper struct {
	stop    context.CancelFunc
	done    chan struct{}
	mu      sync.Mutex
	lostErr error
}

type renewer interface {
	RenewLease(ctx context.Context, cluster, owner string, ttl time.Duration) (state.Lease, error)
}

// keepLease starts renewing and returns the context the work must run under.
func keepLease(ctx context.Context, st renewer, cluster, owner string, ttl time.Duration) (context.Context, *keeper) {
	work, cancelWork := context.WithCancelCause(ctx)
	kctx, stop := context.WithCancel(ctx)
	k := &keeper{stop: stop, done: make(chan struct{})}
	go func() {
		defer close(k.done)
		t := time.NewTicker(max(ttl/3, 10*time.Millisecond))
		defer t.Stop()
		failures := 0
		for {
			select {
			case <-kctx.Done():
				return
			case <-t.C:
			}
			_, err := st.RenewLease(kctx, cluster, owner, ttl)
			switch {
			case err == nil:
				failures = 0
			case errors.Is(err, state.ErrConflict):
				k.lost(fmt.Errorf("lease of cluster %s lost: another process failed or took over the operation: %w", cluster, err))
				cancelWork(k.err())
				return
			case kctx.Err() != nil:
				return
			default:
				// A database hiccup: keep trying until the lease would have expired.
				failures++
				if time.Duration(failures)*ttl/3 >= ttl {
					k.lost(fmt.Errorf("renew lease of cluster %s: %w", cluster, err))
					cancelWork(k.err())
					return
				}
			}
		}
	}()
	return work, k
}

func (k *keeper) lost(err error) { k.mu.Lock(); k.lostErr = err; k.mu.Unlock() }

func (k *keeper) err() error { k.mu.Lock(); defer k.mu.Unlock(); return k.lostErr }

// Stop ends the renewals and returns why the lease was lost, if it was.
func (k *keeper) Stop() error {
	k.stop()
	<-k.done
	return k.err()
}
