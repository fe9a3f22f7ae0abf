package fleet

import (
	"context"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// loop is one Run: it claims clusters while it has free slots and may start more, and ends once
// the fleet has nothing left to do.
type loop struct {
	r       *Runner
	o       Options
	targets map[string]Target
	since   time.Time // when this runner joined, on the database's clock
	done    chan Result
	active  int
	sum     Summary
	foreign map[string]bool // clusters of the fleet this runner has no inventory for
	// canaryPassed: every canary cluster is done; the canaries are not read again.
	canaryPassed bool
}

func (l *loop) run(ctx context.Context) (Summary, error) {
	tick := time.NewTicker(l.o.Poll)
	defer tick.Stop()
	for {
		if err := l.fill(ctx); err != nil {
			l.drain()
			return l.sum, err
		}
		if l.active == 0 {
			left, err := l.pendingLeft(ctx)
			if err != nil {
				return l.sum, err
			}
			if !left || l.sum.Stopped != "" || ctx.Err() != nil {
				return l.sum, l.end(ctx)
			}
		}
		select {
		case res := <-l.done:
			l.finished(res)
		case <-tick.C:
		case <-ctx.Done():
			if l.active == 0 {
				return l.sum, ctx.Err()
			}
			l.finished(<-l.done)
		}
	}
}

// end is the run's error: why it stopped, or that clusters failed.
func (l *loop) end(ctx context.Context) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case l.sum.Stopped != "":
		return fmt.Errorf("%w: %s", ErrStopped, l.sum.Stopped)
	case l.sum.Failed > 0:
		return fmt.Errorf("%d cluster(s) failed: `kupgrade fleet show` lists them; run this fleet run again to retry them (or give it --retries N): %w", l.sum.Failed, ErrClustersFailed)
	}
	return nil
}

// ErrClustersFailed marks a run in which some clusters failed (exit 1).
var ErrClustersFailed = fmt.Errorf("clusters failed: %w", errFailed)

func (l *loop) drain() {
	for l.active > 0 {
		l.finished(<-l.done)
	}
}

func (l *loop) finished(res Result) {
	l.active--
	switch res.Outcome {
	case state.FleetDone:
		l.sum.Done++
	case state.FleetFailed:
		l.sum.Failed++
	case HandedBack:
		l.sum.HandedBack++
	default:
		l.sum.Lost++
	}
	if l.r.Report != nil {
		l.r.Report(res)
	}
}

// fill claims clusters for the free slots, unless the run must start no more.
func (l *loop) fill(ctx context.Context) error {
	free := l.o.MaxParallel - l.active
	if free <= 0 || l.sum.Stopped != "" || ctx.Err() != nil {
		return nil
	}
	below, err := l.gates(ctx)
	if err != nil || l.sum.Stopped != "" {
		return err
	}
	sent := time.Now() // the claims count from when they were asked for
	claims, err := l.r.Store.ClaimClusters(ctx, state.ClaimQuery{Fleet: l.o.Fleet, Owner: l.r.Owner, TTL: l.o.TTL, Max: free, Below: below})
	if err != nil {
		l.r.log().Warn("claim clusters", "error", err) // a database blip: the next tick tries again
		return nil
	}
	for _, c := range claims {
		t, ok := l.targets[c.Cluster]
		if !ok {
			// Another runner of the fleet was given this cluster, this one was not: the claim is
			// left to expire (a TTL) for a runner that has its inventory, and the walk passes it.
			if !l.foreign[c.Cluster] {
				l.r.log().Warn("claimed a cluster this runner has no inventory for: left to the runners that have it (give every runner of a fleet the same inventories)", "cluster", c.Cluster)
			}
			l.foreign[c.Cluster] = true
			continue
		}
		l.active++
		if l.r.Started != nil {
			l.r.Started(c.Cluster, c.TakenFrom)
		}
		go func() { l.done <- l.r.work(ctx, c, t, l.o, sent) }()
	}
	return nil
}

// gates applies --max-failures and --canary: it sets Stopped, or returns the position below
// which claims must stay while the canaries run (0: none).
func (l *loop) gates(ctx context.Context) (int, error) {
	if l.o.MaxFailures > 0 {
		n, err := l.r.Store.FleetFailures(ctx, l.o.Fleet, l.since)
		if err != nil {
			return 0, err
		}
		if n >= l.o.MaxFailures {
			l.sum.Stopped = fmt.Sprintf("%d cluster(s) failed, --max-failures is %d: no new cluster is started", n, l.o.MaxFailures)
			return 0, nil
		}
	}
	if l.o.Canary <= 0 || l.canaryPassed {
		return 0, nil
	}
	c, err := l.r.Store.FleetCanary(ctx, l.o.Fleet, l.o.Canary)
	if err != nil {
		return 0, err
	}
	if c[state.FleetFailed] > 0 {
		l.sum.Stopped = fmt.Sprintf("%d of the %d canary cluster(s) failed: the rest of the fleet is not started", c[state.FleetFailed], l.o.Canary)
		return 0, nil
	}
	if c[state.FleetPending] > 0 {
		return l.o.Canary, nil
	}
	l.canaryPassed = true // for good: no further look at them
	return 0, nil
}

// pendingLeft reports whether a cluster of this runner's is still to do, in this runner's hands
// or another's: it reads past the clusters it has no inventory for, and no further.
func (l *loop) pendingLeft(ctx context.Context) (bool, error) {
	names, err := l.r.Store.FleetPending(ctx, l.o.Fleet, len(l.foreign)+1)
	for _, n := range names {
		if !l.foreign[n] {
			return true, err
		}
	}
	return false, err
}
