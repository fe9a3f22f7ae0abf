package fleet_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// unfinishingStore cannot finish one cluster's claim with any outcome but failed, as a
// database that refuses its outcome row would: each run of it ends with its claim held until
// it expires, and another claim runs the cluster again.
type unfinishingStore struct {
	*sqlite.Store
	cluster string
	begun   atomic.Int32
}

func (s *unfinishingStore) BeginClaim(ctx context.Context, cluster, owner string, generation int64) (int, error) {
	if cluster == s.cluster {
		s.begun.Add(1)
	}
	return s.Store.BeginClaim(ctx, cluster, owner, generation)
}

func (s *unfinishingStore) FinishClaim(ctx context.Context, cluster, owner string, generation int64, outcome state.FleetOutcome, lastError string) error {
	if cluster == s.cluster && outcome != state.FleetFailed {
		return errors.New("Error 1406 (22001): Data too long for column 'last_error'")
	}
	return s.Store.FinishClaim(ctx, cluster, owner, generation, outcome, lastError)
}

// A claim that cannot be finished counts toward the hand-back limit, in the database: the
// cluster is run a bounded number of times and then counted failed, not retaken forever.
func TestUnfinishedClaimsCountTowardTheLimit(t *testing.T) {
	f, targets := startFleet(t, 2)
	st := &unfinishingStore{Store: newSQLite(t), cluster: "c0001"}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	sum, err := newRunner(f, st, "runner", nil).Run(ctx, targets, fleet.Options{To: "v1.30.1", TTL: 500 * time.Millisecond})
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
