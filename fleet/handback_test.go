package fleet_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// errCut stands for a read the database cut (a Galera node stopped under it).
var errCut = errors.New("invalid connection")

// cuttingStore cuts the reads of one cluster's upgrade row, the first cuts times (-1: always),
// with an error the store calls unavailable when database is true, or one it does not.
type cuttingStore struct {
	*sqlite.Store
	cluster  string
	database bool

	mu   sync.Mutex
	cuts int
}

func (s *cuttingStore) Upgrade(ctx context.Context, cluster string) (state.Upgrade, error) {
	s.mu.Lock()
	cut := cluster == s.cluster && s.cuts != 0
	if cut && s.cuts > 0 {
		s.cuts--
	}
	s.mu.Unlock()
	if cut {
		if s.database {
			return state.Upgrade{}, errCut
		}
		return state.Upgrade{}, errors.New("the inventory names no such cluster")
	}
	return s.Store.Upgrade(ctx, cluster)
}

func (s *cuttingStore) Unavailable(err error) bool {
	return errors.Is(err, errCut) || s.Store.Unavailable(err)
}

// A cluster whose run the database cut, not the cluster, is handed back to the fleet rather than
// counted failed, and finished when its next claim runs; one that the database keeps cutting is
// counted failed after a bounded number of hand-backs; any other error fails it at once.
func TestClusterHandedBackWhenTheDatabaseFails(t *testing.T) {
	tests := []struct {
		name       string
		cuts       int
		database   bool
		done       int
		failed     int
		handedBack int // exactly, or at least when atLeast
		atLeast    bool
	}{
		{"cut, then healthy", 2, true, 3, 0, 1, true},
		{"cut every time", -1, true, 2, 1, 3, false},
		{"not the database", 1, false, 2, 1, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, targets := startFleet(t, 3)
			base := newSQLite(t)
			st := &cuttingStore{Store: base, cluster: "c0001", database: tc.database, cuts: tc.cuts}
			r := newRunner(f, st, "runner", nil)
			sum, err := r.Run(t.Context(), targets, fleet.Options{To: "v1.30.1", TTL: 2 * time.Second})
			if tc.failed > 0 && !errors.Is(err, fleet.ErrClustersFailed) || tc.failed == 0 && err != nil {
				t.Fatalf("run: %v", err)
			}
			hb := sum.HandedBack == tc.handedBack || tc.atLeast && sum.HandedBack >= tc.handedBack
			if sum.Done != tc.done || sum.Failed != tc.failed || !hb {
				t.Errorf("summary %+v: want %d done, %d failed, %d handed back", sum, tc.done, tc.failed, tc.handedBack)
			}
			rows, err := base.FleetRows(t.Context(), "default")
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rows {
				want := state.FleetDone
				if row.Cluster == "c0001" && tc.failed > 0 {
					want = state.FleetFailed
				}
				if row.Outcome != want {
					t.Errorf("%s: outcome %s (%s), want %s", row.Cluster, row.Outcome, row.LastError, want)
				}
			}
		})
	}
}
