package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// racers and instances: 32 goroutines spread over 4 Store instances (separate connection pools,
// as separate processes would have) race the same transition.
const (
	racers    = 32
	instances = 4
)

// testRace races three transitions, each guarded by a different compare-and-set: the state
// (taking a lease), then a host status (state unchanged) under the winner's lease, then both
// with the lease released.
func testRace(t *testing.T, b Backend) {
	stores := make([]state.Store, instances)
	for i := range stores {
		stores[i] = b.Open(t)
	}
	create(t, stores[0], "c1")
	walk(t, stores[0], "c1", state.UpgradedNetworking)
	const fm, cp = state.UpgradingFirstMaster, state.UpgradingControlPlane
	// Each racer is its own actor; owner is the actor whose lease won the first round.
	rounds := []func(actor, owner string) state.Change{
		func(actor, _ string) state.Change {
			return state.Start("c1", state.Actor(actor), state.UpgradedNetworking, fm,
				state.LeaseSpec{Owner: actor, Operation: "control-plane@controller-0", TTL: time.Minute})
		},
		func(actor, owner string) state.Change {
			return state.StartHost("c1", state.Actor(actor), fm, owner, state.OnHost("controller-0", state.HostIdle, cp))
		},
		func(actor, owner string) state.Change {
			return state.Fail("c1", state.Actor(actor), fm, state.UpgradingFirstMasterFailed, state.HeldBy(owner),
				state.OnHost("controller-0", cp, state.HostIdle))
		},
	}
	owner := ""
	for round, change := range rounds {
		before := countEvents(t, stores[0], "c1")
		errs := make([]error, racers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range racers {
			wg.Go(func() {
				<-start
				c := change(fmt.Sprintf("racer-%d", i), owner)
				_, errs[i] = stores[i%instances].Apply(context.Background(), c)
			})
		}
		close(start)
		wg.Wait()
		winners := 0
		for i, err := range errs {
			switch {
			case err == nil:
				winners++
				if owner == "" {
					owner = fmt.Sprintf("racer-%d", i)
				}
			case !errors.Is(err, state.ErrConflict):
				t.Errorf("round %d, racer %d: %v, want nil or ErrConflict", round, i, err)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d winners, want exactly 1", round, winners)
		}
		if n := countEvents(t, stores[0], "c1") - before; n != 1 {
			t.Fatalf("round %d: %d event rows, want 1", round, n)
		}
	}
	if h := mustHost(t, stores[1], "c1", "controller-0"); h.Status != state.HostIdle {
		t.Fatalf("host after the races: %+v", h)
	}
	if l, _ := stores[2].Lease(context.Background(), "c1"); l != nil {
		t.Fatalf("lease after the races: %+v", l)
	}
}
