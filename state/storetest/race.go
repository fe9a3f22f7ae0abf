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
// alone, then a host status (state unchanged) with a lease, then both with the lease released.
func testRace(t *testing.T, b Backend) {
	stores := make([]state.Store, instances)
	for i := range stores {
		stores[i] = b.Open(t)
	}
	create(t, stores[0], "c1")
	move(t, stores[0], "c1", state.UpgradeStarted, state.UpgradedNetworking)
	rounds := []func(actor string) state.Change{
		func(string) state.Change {
			return state.Change{From: state.UpgradedNetworking, To: state.UpgradingFirstMaster}
		},
		func(actor string) state.Change {
			return state.Change{From: state.UpgradingFirstMaster, To: state.UpgradingFirstMaster, Host: "controller-0",
				HostFrom: status(state.HostIdle), HostTo: status(state.UpgradingControlPlane),
				AcquireLease: &state.LeaseSpec{Owner: actor, Operation: "control-plane@controller-0", TTL: time.Minute}}
		},
		func(string) state.Change {
			return state.Change{From: state.UpgradingFirstMaster, To: state.UpgradingFirstMasterFailed, Host: "controller-0",
				HostFrom: status(state.UpgradingControlPlane), HostTo: status(state.HostIdle), ReleaseLease: true}
		},
	}
	for round, change := range rounds {
		before := countEvents(t, stores[0], "c1")
		errs := make([]error, racers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range racers {
			wg.Go(func() {
				<-start
				c := change(fmt.Sprintf("racer-%d", i))
				c.Cluster, c.Actor = "c1", fmt.Sprintf("racer-%d", i)
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
