package fleet_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/internal/sim"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
	"github.com/kupgrade/kupgrade/state/storetest"
	"github.com/kupgrade/kupgrade/upgrade"
)

type dialer struct{ d *sshconn.Dialer }

func (d dialer) Dial(ctx context.Context, h *inventory.Host) (runner.Conn, error) {
	return d.d.Dial(ctx, h)
}

// startFleet starts n simulated clusters of 2 controllers and 1 worker at v1.29.4 and loads
// their inventories.
func startFleet(t *testing.T, n int) (*sim.Fleet, []fleet.Target) {
	t.Helper()
	f, err := sim.Start(sim.Options{Clusters: n, Controllers: 2, Workers: 1, From: "v1.29.4", To: "v1.30.1", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	targets, err := fleet.Load(nil, f.Inventories)
	if err != nil {
		t.Fatal(err)
	}
	return f, targets
}

// newSQLite is a new, empty SQLite store opened with opts.
func newSQLite(t *testing.T, opts ...state.Option) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "k.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// newRunner is a fleet runner named owner on st over f's hosts; the results it reports are
// appended to *results when results is not nil.
func newRunner(f *sim.Fleet, st fleet.Store, owner string, results *[]fleet.Result) *fleet.Runner {
	d := &sshconn.Dialer{KnownHosts: f.KnownHosts}
	r := &fleet.Runner{Store: st, Owner: owner, Open: func(tg fleet.Target) (*upgrade.Workflow, func(), error) {
		run := runner.New(dialer{d}, runner.Options{Modules: kubeadm.Modules()})
		return &upgrade.Workflow{Store: st, Runner: run, Inventory: tg.Inventory, Cluster: tg.Cluster}, func() { run.Close() }, nil
	}}
	if results != nil {
		r.Report = func(res fleet.Result) { *results = append(*results, res) }
	}
	return r
}

// A claim whose runner died (it renews it no more) is taken over once it expires, and the
// cluster is finished by the runner that took it.
func TestExpiredClaimIsTakenOver(t *testing.T) {
	f, targets := startFleet(t, 3)
	clock := storetest.NewClock() // the database's clock: it moves when the test says
	st := newSQLite(t, state.WithClock(clock.Now))
	const ttl = 400 * time.Millisecond
	members := []state.FleetMember{{Cluster: "c0000", ToVersion: "v1.30.1"}}
	if _, err := st.JoinFleet(t.Context(), "default", members); err != nil {
		t.Fatal(err)
	}
	dead, err := st.ClaimClusters(t.Context(), state.ClaimQuery{Fleet: "default", Owner: "dead-runner", TTL: ttl, Max: 1})
	if err != nil || len(dead) != 1 {
		t.Fatalf("the dead runner's claim: %v %v", dead, err)
	}
	clock.Add(ttl) // the dead runner renews it no more: its claim has expired
	var results []fleet.Result
	r := newRunner(f, st, "live-runner", &results)
	sum, err := r.Run(t.Context(), targets, fleet.Options{To: "v1.30.1", TTL: ttl})
	if err != nil || sum.Done != 3 {
		t.Fatalf("run: %+v %v", sum, err)
	}
	taken := 0
	for _, res := range results {
		if res.Cluster == "c0000" && res.TakenFrom == "dead-runner" && res.State == state.UpgradeComplete {
			taken++
		}
	}
	if taken != 1 {
		t.Errorf("c0000 was not taken over from the dead runner and completed: %+v", results)
	}
	rows, _ := st.FleetRows(t.Context(), "default")
	for _, row := range rows {
		if row.Cluster == "c0000" && row.Generation != 2 {
			t.Errorf("c0000's claim generation %d, want 2 (the dead runner's, then the takeover)", row.Generation)
		}
	}
}

// A cluster that is already at the target (its upgrade recorded in another database, or done by
// hand) is done, not failed: a fleet run on a new database over an upgraded fleet has nothing to do.
func TestClusterAlreadyAtTheTargetIsDone(t *testing.T) {
	f, targets := startFleet(t, 2)
	for i, want := range []string{"upgrade-complete", ""} {
		var results []fleet.Result
		r := newRunner(f, newSQLite(t), "runner", &results)
		sum, err := r.Run(t.Context(), targets, fleet.Options{To: "v1.30.1", TTL: 2 * time.Second})
		if err != nil || sum.Done != 2 {
			t.Fatalf("run %d on a new database: %+v %v", i+1, sum, err)
		}
		for _, res := range results {
			if string(res.State) != want {
				t.Errorf("run %d: %s ended in state %q, want %q", i+1, res.Cluster, res.State, want)
			}
		}
	}
}

// A cluster whose control plane is at the target but some kubelets are not, with no upgrade in
// the database, is failed with the kubelets named: kupgrade cannot start an upgrade from the
// version it is at, and a cluster half done is no cluster done.
func TestClusterWithKubeletsBehindIsNotDone(t *testing.T) {
	f, targets := startFleet(t, 1)
	for i, until := range []state.State{state.UpgradedSecondMaster, ""} {
		var results []fleet.Result
		r := newRunner(f, newSQLite(t), "runner", &results)
		sum, err := r.Run(t.Context(), targets, fleet.Options{To: "v1.30.1", Until: until, TTL: 2 * time.Second})
		if i == 0 {
			if err != nil || sum.Done != 1 {
				t.Fatalf("run up to %s: %+v %v", until, sum, err)
			}
			continue
		}
		if sum.Failed != 1 || len(results) != 1 || results[0].Err == nil || !strings.Contains(results[0].Err.Error(), "not every kubelet is: ") {
			t.Fatalf("run on a new database with the kubelets behind: %+v %v %+v", sum, err, results)
		}
		t.Logf("%v", results[0].Err)
	}
}
