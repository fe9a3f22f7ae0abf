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

func testRace(t *testing.T, b Backend) {
	stores := make([]state.Store, instances)
	for i := range stores {
		stores[i] = b.Open(t)
	}
	create(t, stores[0], "c1")
	move(t, stores[0], "c1", state.UpgradeStarted, state.UpgradedNetworking)
	for round, to := range []state.State{state.UpgradingFirstMaster, state.UpgradingFirstMasterFailed} {
		from := []state.State{state.UpgradedNetworking, state.UpgradingFirstMaster}[round]
		errs := make([]error, racers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range racers {
			wg.Go(func() {
				<-start
				c := state.Change{Cluster: "c1", Actor: fmt.Sprintf("racer-%d", i), From: from, To: to,
					Host: "controller-0", HostTo: status(state.UpgradingControlPlane)}
				if round == 0 {
					c.HostFrom = status(state.HostIdle)
					c.AcquireLease = &state.LeaseSpec{Owner: c.Actor, Operation: "control-plane@controller-0", TTL: time.Minute}
				} else {
					c.HostFrom, c.HostTo, c.ReleaseLease = status(state.UpgradingControlPlane), status(state.HostIdle), true
				}
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
				t.Errorf("racer %d: %v, want nil or ErrConflict", i, err)
			}
		}
		if winners != 1 {
			t.Fatalf("%s -> %s: %d winners, want exactly 1", from, to, winners)
		}
		es, _ := stores[0].Events(context.Background(), "c1", 0)
		n := 0
		for _, e := range es {
			if e.ToState == to {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%s -> %s: %d event rows, want 1", from, to, n)
		}
	}
	if h := mustHost(t, stores[1], "c1", "controller-0"); h.Status != state.HostIdle {
		t.Fatalf("host after the races: %+v", h)
	}
}
