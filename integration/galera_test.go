//go:build integration

package integration_test

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/mysql"
	"github.com/kupgrade/kupgrade/state/storetest"
)

// The Galera tests (KUPGRADE_GALERA=1 or KUPGRADE_FULL=1, `make test-galera`) run kupgrade's
// store against a 3-node MariaDB Galera cluster of the lab, where a write on one node is
// certified by the others at commit and a conflicting one fails there (1213).

// galeraDSN is the go-sql-driver DSN of one node with the far session zone of the MariaDB suite.
func galeraDSN(n *lab.MariaDB) string { return n.DSN() + "&" + farSession }

// TestGaleraStoreConformance runs the store's conformance suite on Galera: every store on one
// node, each node in turn (KUPGRADE_GALERA_NODES=all; the first node only otherwise), and
// spread, where the suite's n-th store connects to node n % 3 and its checks and hand edits go
// through another (a writer on node 1, a reader on node 2, racers on all three).
func TestGaleraStoreConformance(t *testing.T) {
	t.Parallel()
	lab.RequireGalera(t)
	g := lab.StartGalera(t)
	var dsns []string
	for _, n := range g.Nodes {
		dsns = append(dsns, galeraDSN(n))
	}
	nodes := 1
	if envIs("KUPGRADE_GALERA_NODES", "all") {
		nodes = len(dsns)
	}
	for i := range nodes {
		t.Run(fmt.Sprintf("node-%d", i+1), func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) storetest.Backend { return mysqlBackend(t, dsns[i]) })
		})
	}
	t.Run("spread", func(t *testing.T) {
		raw := dsns[len(dsns)-1] + "&wsrep_sync_wait=7"
		storetest.Run(t, func(t *testing.T) storetest.Backend { return mysqlBackendOn(t, dsns, raw) })
	})
}

// openNode opens kupgrade's MySQL store on one node.
func openNode(t *testing.T, dsn string) *mysql.Store {
	t.Helper()
	d, err := state.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	s, err := mysql.Open(t.Context(), d)
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	t.Cleanup(func() { s.Close() })
	if !s.Galera {
		t.Fatalf("%s: the store does not see a Galera node (wsrep_on)", d)
	}
	return s
}

// Two writers on two nodes race the same compare-and-set, round after round: each round exactly
// one wins, the other gets the ordinary refusal (ErrConflict), never an error of Galera's, and
// one event is written. Galera's certification failures are retried inside the store (counted).
func TestGaleraRaceAcrossNodes(t *testing.T) {
	t.Parallel()
	lab.RequireGalera(t)
	g := lab.StartGalera(t)
	backend := mysqlBackend(t, galeraDSN(g.Nodes[0])+"&wsrep_sync_wait=7")
	stores := []*mysql.Store{openNode(t, galeraDSN(g.Nodes[0])), openNode(t, galeraDSN(g.Nodes[1]))}
	ctx := t.Context()
	if _, err := stores[0].CreateUpgrade(ctx, state.NewUpgrade{Cluster: "c1", FromVersion: "v1.29.4", ToVersion: "v1.30.1",
		Hosts: []state.NewHost{{Hostname: "controller-0", Personality: state.Controller}}, Actor: state.ActorCLI, Reason: "start"}); err != nil {
		t.Fatal(err)
	}
	const rounds = 40
	from := state.UpgradeStarted
	conflicts := 0
	for round := range rounds {
		errs := make([]error, len(stores))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, s := range stores {
			wg.Go(func() {
				<-start
				owner := fmt.Sprintf("node-%d-round-%d", i+1, round)
				_, errs[i] = s.Apply(ctx, state.Start("c1", state.Actor(owner), from, state.DownloadingImages,
					state.LeaseSpec{Owner: owner, Operation: "download-images", TTL: time.Minute}))
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: both writers won", round)
			case err == nil:
				winner = i
			case errors.Is(err, state.ErrConflict):
				conflicts++
			default:
				t.Fatalf("round %d, writer on node %d: %v, want nil or the state-changed refusal", round, i+1, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody won: %v", round, errs)
		}
		owner := fmt.Sprintf("node-%d-round-%d", winner+1, round)
		// The loser's node must see the winner's write: fail it from there.
		if _, err := stores[1-winner].Apply(ctx, state.Fail("c1", state.ActorCLI, state.DownloadingImages,
			state.DownloadingImagesFailed, state.HeldBy(owner))); err != nil {
			t.Fatalf("round %d: fail the winner's operation from the other node: %v", round, err)
		}
		from = state.DownloadingImagesFailed
	}
	var aborted int64
	for _, s := range stores {
		aborted += s.Retries.Aborted.Load()
	}
	if n := countRows(t, backend.DB, "SELECT COUNT(*) FROM kube_upgrade_event WHERE to_state = 'downloading-images'"); n != rounds {
		t.Fatalf("%d events entered downloading-images, want %d (one per round)", n, rounds)
	}
	t.Logf("%d rounds: %d refusals, %d transactions run again after a certification failure or deadlock", rounds, conflicts, aborted)
}

func envIs(key, value string) bool { return strings.EqualFold(os.Getenv(key), value) }

// BenchmarkGaleraTransition is BenchmarkMySQLTransition on one node of a Galera cluster: what a
// commit costs when the two other nodes must certify it.
func BenchmarkGaleraTransition(b *testing.B) {
	lab.RequireGalera(b)
	g := lab.StartGalera(b)
	storetest.BenchmarkTransition(b, mysqlBackend(b, galeraDSN(g.Nodes[0])))
}

// BenchmarkGaleraClocks measures what leases on the database's clock rely on when the nodes
// differ: how far apart the three nodes' UTC_TIMESTAMP(6) are. Each reading is placed at the
// middle of its round trip on this machine's monotonic clock; skew-µs is the largest difference
// between two nodes' offsets in a round (p50 and max over the rounds), rtt-µs the largest round
// trip: a reading's uncertainty is half of it.
func BenchmarkGaleraClocks(b *testing.B) {
	lab.RequireGalera(b)
	g := lab.StartGalera(b)
	var dbs []*sql.DB
	for _, n := range g.Nodes {
		db, err := sql.Open("mysql", n.DSN())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	var skews []time.Duration
	var rtt time.Duration
	for b.Loop() {
		var offsets []time.Duration
		for _, db := range dbs {
			var s string
			before := time.Now()
			if err := db.QueryRow("SELECT DATE_FORMAT(UTC_TIMESTAMP(6), '%Y-%m-%dT%H:%i:%s.%fZ')").Scan(&s); err != nil {
				b.Fatal(err)
			}
			after := time.Now()
			at, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				b.Fatal(err)
			}
			rtt = max(rtt, after.Sub(before))
			offsets = append(offsets, at.Sub(before.Add(after.Sub(before)/2)))
		}
		skews = append(skews, slices.Max(offsets)-slices.Min(offsets))
	}
	slices.Sort(skews)
	b.ReportMetric(float64(skews[len(skews)/2].Microseconds()), "p50-skew-µs")
	b.ReportMetric(float64(skews[len(skews)-1].Microseconds()), "max-skew-µs")
	b.ReportMetric(float64(rtt.Microseconds()), "rtt-µs")
}

// A node taken out of service while kupgrade holds connections to it (an operator's
// wsrep_reject_queries, or a node cut off from the others' majority: every statement then
// fails with 1047): the transaction runs again, the failover moves to the next node of the
// DSN, and the write lands once.
func TestGaleraNodeOutOfService(t *testing.T) {
	t.Parallel()
	lab.RequireGalera(t)
	g := lab.StartGalera(t)
	db := mysqlBackend(t, galeraDSN(g.Nodes[2])+"&wsrep_sync_wait=7").DB
	s := openNode(t, g.URL()+"?"+farSession)
	ctx := t.Context()
	if _, err := s.CreateUpgrade(ctx, state.NewUpgrade{Cluster: "c1", FromVersion: "v1.29.4", ToVersion: "v1.30.1",
		Hosts: []state.NewHost{{Hostname: "controller-0", Personality: state.Controller}}, Actor: state.ActorCLI, Reason: "start"}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Nodes[0].RootSQL(ctx, "SET GLOBAL wsrep_reject_queries = ALL"); err != nil {
		t.Fatal(err)
	}
	lease := state.LeaseSpec{Owner: "runner", Operation: "download-images", TTL: time.Minute}
	if _, err := s.Apply(ctx, state.Start("c1", state.ActorRunner, state.UpgradeStarted, state.DownloadingImages, lease)); err != nil {
		t.Fatalf("a transition with node 1 out of service: %v", err)
	}
	if n := countRows(t, db, "SELECT COUNT(*) FROM kube_upgrade_event WHERE to_state = 'downloading-images'"); n != 1 {
		t.Fatalf("%d events entered downloading-images, want 1", n)
	}
	if s.Retries.Aborted.Load() == 0 {
		t.Fatalf("the store did not run the refused transaction again: did node 1 refuse it?")
	}
	t.Logf("transactions run again: %d", s.Retries.Aborted.Load())
}

// Three processes open an empty database at the same moment, each through its own node: they
// migrate one at a time (a lock row of schema_migrations; GET_LOCK would hold on one node only),
// every Open succeeds, each migration is recorded once and the lock row is gone.
func TestGaleraFirstOpenOnThreeNodes(t *testing.T) {
	t.Parallel()
	lab.RequireGalera(t)
	g := lab.StartGalera(t)
	db, err := sql.Open("mysql", galeraDSN(g.Nodes[2])+"&wsrep_sync_wait=7")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	files, err := filepath.Glob("../state/mysql/migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("list the MySQL migrations: %v %v", files, err)
	}
	for round := range 3 {
		dropTables(t, db)
		errs := make([]error, len(g.Nodes))
		var wg sync.WaitGroup
		for i, n := range g.Nodes {
			wg.Go(func() {
				d, err := state.ParseDSN(galeraDSN(n))
				if err == nil {
					var s *mysql.Store
					if s, err = mysql.Open(t.Context(), d); err == nil {
						s.Close()
					}
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: open through node %d: %v", round, i+1, err)
			}
		}
		if n := countRows(t, db, "SELECT COUNT(*) FROM schema_migrations WHERE version > 0"); n != len(files) {
			t.Fatalf("round %d: %d migrations recorded, want each of the %d once", round, n, len(files))
		}
		if n := countRows(t, db, "SELECT COUNT(*) FROM schema_migrations WHERE version = 0"); n != 0 {
			t.Fatalf("round %d: the migration lock row is left behind", round)
		}
	}
}
