package fleet_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
	"github.com/kupgrade/kupgrade/state/storetest"
)

// unfinishingStore cannot finish one cluster's claim with any outcome but failed, as a
// database that refuses its outcome row would: each run of it ends with its claim held until
// it expires, and another claim runs the cluster again. Its clock (the database's) moves a TTL
// forward whenever the runner finds nothing to claim with no claim of its own in hand: the
// unfinished claim expires without a wait on the wall clock.
type unfinishingStore struct {
	*sqlite.Store
	cluster string
	begun   atomic.Int32
	clock   *storetest.Clock
	ttl     time.Duration

	mu      sync.Mutex
	working map[string]bool // claimed and not finished yet
}

func (s *unfinishingStore) ClaimClusters(ctx context.Context, q state.ClaimQuery) ([]state.Claim, error) {
	cs, err := s.Store.ClaimClusters(ctx, q)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range cs {
		s.working[c.Cluster] = true
	}
	if err == nil && len(cs) == 0 && len(s.working) == 0 {
		s.clock.Add(s.ttl)
	}
	return cs, err
}

func (s *unfinishingStore) BeginClaim(ctx context.Context, cluster, owner string, generation int64) (int, error) {
	if cluster == s.cluster {
		s.begun.Add(1)
	}
	return s.Store.BeginClaim(ctx, cluster, owner, generation)
}

func (s *unfinishingStore) FinishClaim(ctx context.Context, cluster, owner string, generation int64, outcome state.FleetOutcome, lastError string) error {
	s.mu.Lock()
	delete(s.working, cluster)
	s.mu.Unlock()
	if cluster == s.cluster && outcome != state.FleetFailed {
		return errors.New("Error 1406 (22001): Data too long for column 'last_error'")
	}
	return s.Store.FinishClaim(ctx, cluster, owner, generation, outcome, lastError)
}

// A claim that cannot be finished counts toward the hand-back limit, in the database: the
// cluster is run a bounded number of times and then counted failed, not retaken forever.
func TestUnfinishedClaimsCountTowardTheLimit(t *testing.T) {
	f, targets := startFleet(t, 2)
	const ttl = 500 * time.Millisecond
	clock := storetest.NewClock()
	st := &unfinishingStore{Store: newSQLite(t, state.WithClock(clock.Now)), cluster: "c0001", clock: clock, ttl: ttl, working: map[string]bool{}}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	sum, err := newRunner(f, st, "runner", nil).Run(ctx, targets, fleet.Options{To: "v1.30.1", TTL: ttl})
	if ctx.Err() != nil {
		t.Fatalf("the run never ended: the cluster was retaken %d times", st.begun.Load())
	}
	if !errors.Is(err, fleet.ErrClustersFailed) || sum.Failed != 1 || sum.Done != 1 {
		t.Fatalf("run: %v, summary %+v: want c0001 counted failed", err, sum)
	}
	if n := st.begun.Load(); n != 5 {
		t.Errorf("c0001's claim began %d times, want 5: 4 runs whose claims were never finished, then the refusal", n)
	}
	rows, err := st.FleetRows(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.Cluster == "c0001" && (row.Outcome != state.FleetFailed || !strings.Contains(row.LastError, "never finished")) {
			t.Errorf("c0001: %s (%s), want failed for its unfinished runs", row.Outcome, row.LastError)
		}
	}
}
