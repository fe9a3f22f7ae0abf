package recovery_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

const (
	benchClusters = 10000
	benchLive     = 200 // in flight with a live lease: read, left alone
	benchDead     = 50  // in flight with an expired lease: failed by every measured pass
)

// seedClusters writes n clusters of three hosts each in one transaction (CreateUpgrade one at a
// time would take minutes): all idle in upgraded-first-master.
func seedClusters(b *testing.B, db *sql.DB, n int) {
	b.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC().Format("2006-01-02 15:04:05.000000")
	for i := range n {
		c := fmt.Sprintf("c%05d", i)
		if _, err := tx.Exec(`INSERT INTO kube_upgrade (uuid, cluster, from_version, to_version, state, state_entered_at, created_at, updated_at)
			VALUES (?, ?, 'v1.29.3', 'v1.30.1', 'upgraded-first-master', ?, ?, ?)`, "u-"+c, c, now, now, now); err != nil {
			b.Fatal(err)
		}
		for j, h := range []string{"controller-1", "controller-2", "worker-1"} {
			res, err := tx.Exec(`INSERT INTO host (cluster, hostname, personality) VALUES (?, ?, ?)`, c, h, []string{"controller", "controller", "worker"}[j])
			if err != nil {
				b.Fatal(err)
			}
			id, _ := res.LastInsertId()
			if _, err := tx.Exec(`INSERT INTO kube_host_upgrade (uuid, host_id, target_version, created_at, updated_at) VALUES (?, ?, 'v1.30.1', ?, ?)`,
				fmt.Sprintf("h-%s-%d", c, j), id, now, now); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAuditPass10kClusters is one audit pass over 10,000 clusters on SQLite: 200 in flight
// with a live lease and the rest idle; then the same with 50 more whose runner died (failed by
// the pass, with their events).
func BenchmarkAuditPass10kClusters(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "bench.db")
	clk := recoverytest.NewClock(time.Now())
	st, err := sqlite.Open(ctx, path, state.WithClock(clk.Now))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	seedClusters(b, db, benchClusters)
	inFlight := func(from, n int, ttl time.Duration) {
		for i := from; i < from+n; i++ {
			c := fmt.Sprintf("c%05d", i)
			if _, err := st.Apply(ctx, state.Start(c, state.ActorRunner, state.UpgradedFirstMaster, state.UpgradingSecondMaster,
				state.LeaseSpec{Owner: "o-" + c, Operation: "control-plane@controller-2", TTL: ttl},
				state.OnHost("controller-2", state.HostIdle, state.UpgradingControlPlane), state.Because("bench"))); err != nil {
				b.Fatal(err)
			}
		}
	}
	inFlight(0, benchLive, time.Hour)
	pass := func(b *testing.B, dead int) {
		for b.Loop() {
			if dead > 0 {
				b.StopTimer()
				if _, err := db.Exec(`UPDATE kube_upgrade SET state = 'upgraded-first-master' WHERE cluster >= ? AND cluster < ?`,
					fmt.Sprintf("c%05d", benchLive), fmt.Sprintf("c%05d", benchLive+dead)); err != nil {
					b.Fatal(err)
				}
				inFlight(benchLive, dead, -time.Second)
				b.StartTimer()
			}
			rep, err := recovery.Audit(ctx, st, recovery.AuditOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if len(rep.Failed) != dead || len(rep.InFlight) != benchLive+dead {
				b.Fatalf("pass failed %d of %d in flight, want %d of %d", len(rep.Failed), len(rep.InFlight), dead, benchLive+dead)
			}
		}
	}
	b.Run("live-leases-only", func(b *testing.B) { pass(b, 0) })
	b.Run(fmt.Sprintf("%d-dead-runners", benchDead), func(b *testing.B) { pass(b, benchDead) })
}

func ptr[T any](v T) *T { return &v }
