//go:build integration

package integration_test

import (
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/internal/sim"
)

// Two fleet runs share a 3-node Galera cluster, given all three nodes; the node they started on
// is stopped a third of the way. The fleet finishes: every cluster upgrade-complete and done,
// the late failures retried, no cluster with two operations at once and no host with two kubeadm
// at once, read on the third node after the run. A cluster whose run the stop cut is handed back
// to the fleet, never counted failed.
func TestGaleraFleetThroughNodeStop(t *testing.T) {
	t.Parallel()
	lab.RequireGalera(t)
	g := lab.StartGalera(t)
	const n = 30
	f, err := sim.Start(sim.Options{Clusters: n, Controllers: 2, Workers: 1, From: "v1.29.4", To: "v1.30.1",
		Dir: t.TempDir(), LateFailure: func(i int) bool { return i%15 == 7 }, KubeadmDelay: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	env := append(os.Environ(), "KUPGRADE_DB="+g.URL(), "HOME="+t.TempDir())
	args := []string{"--lease-ttl", "6s", "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories, "--max-parallel", "6", "--retries", "1"}
	rs := []*fleetRunner{startFleetRunner(t, env, args...), startFleetRunner(t, env, args...)}
	db, err := sql.Open("mysql", galeraDSN(g.Nodes[2])+"&wsrep_sync_wait=7")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	waitDone(t, db, n/3)
	if err := g.Nodes[0].Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if err := waitExit(r, 5*time.Minute); err != nil {
			t.Fatalf("runner %d: %v\n%s", i, err, r.out.String())
		}
	}
	checkSharedFleet(t, db, f, n)
	for i, r := range rs {
		t.Logf("runner %d:\n%s", i, lastLines(r.out.String(), 4))
	}
}

// lastLines is the last k lines of s.
func lastLines(s string, k int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-k):], "\n")
}
