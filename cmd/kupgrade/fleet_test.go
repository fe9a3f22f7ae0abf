package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/internal/sim"
	"github.com/kupgrade/kupgrade/state"
)

// startFleet starts a simulated fleet of n clusters of 2 controllers and 1 worker; late says
// which get a late kubeadm failure on their second controller, once.
func startFleet(t testing.TB, n int, late func(int) bool) *sim.Fleet {
	t.Helper()
	f, err := sim.Start(sim.Options{Clusters: n, Controllers: 2, Workers: 1, From: "v1.29.4", To: "v1.30.1", Dir: t.TempDir(), LateFailure: late})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func kupgrade(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, bytes.NewReader(nil), &out, &errb)
	return code, out.String(), errb.String()
}

// fleetShow is `fleet show -o json` of the one fleet.
func fleetShow(t testing.TB, db string) fleet.Overview {
	t.Helper()
	code, out, errs := kupgrade(t, "--db", db, "-o", "json", "fleet", "show")
	var sums []fleet.Overview
	if code != 0 || json.Unmarshal([]byte(out), &sums) != nil || len(sums) != 1 {
		t.Fatalf("fleet show: exit %d, %s %s", code, out, errs)
	}
	return sums[0]
}

// events reads every event of the database.
func events(t testing.TB, db string) []state.Event {
	t.Helper()
	d, err := state.ParseDSN(db)
	if err != nil {
		t.Fatal(err)
	}
	st, err := openStore(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Events(context.Background(), state.AllClusters, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// failures lists the failed state changes of db's upgrades with their reasons, to tell why a
// fleet run failed.
func failures(t testing.TB, db string) string {
	var b strings.Builder
	for _, e := range events(t, db) {
		if strings.HasSuffix(string(e.ToState), "-failed") && e.FromState != e.ToState {
			fmt.Fprintf(&b, "%s %s %s -> %s: %s\n", e.Cluster, e.Hostname, e.FromState, e.ToState, e.Reason)
		}
	}
	return b.String()
}

// checkFleetDone checks what a user would: every cluster upgrade-complete, every host at the
// target, never two operations at once on a cluster nor two kubeadm at once on a host.
func checkFleetDone(t testing.TB, f *sim.Fleet, db string) {
	t.Helper()
	s := fleetShow(t, db)
	if s.States[string(state.UpgradeComplete)] != len(f.Clusters) || s.Outcomes[state.FleetDone] != len(f.Clusters) {
		t.Errorf("fleet show: states %v outcomes %v, want all %d upgrade-complete and done", s.States, s.Outcomes, len(f.Clusters))
	}
	for _, c := range f.Clusters {
		for _, h := range c.Hosts {
			if v, _ := h.File("/var/lib/kupgrade-lab/kubelet-running"); strings.TrimSpace(v) != "v1.30.1" {
				t.Errorf("%s/%s: kubelet running %q, want v1.30.1", c.Name, h.Name, v)
			}
		}
	}
	if err := sim.CheckOneOperation(events(t, db)); err != nil {
		t.Error(err)
	}
	if m := f.MaxConcurrentKubeadm(); m > 1 {
		t.Errorf("a host ran %d kubeadm at once", m)
	}
}

// TestFleetRun upgrades 50 clusters (1,000 with KUPGRADE_FULL=1) with one fleet run on SQLite.
func TestFleetRun(t *testing.T) {
	n := 50
	if os.Getenv("KUPGRADE_FULL") != "" {
		n = 1000
	}
	f := startFleet(t, n, nil)
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	code, out, errs := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories, "--max-parallel", "20")
	if code != 0 {
		t.Fatalf("fleet run: exit %d\n%s\n%s\nfailures:\n%s", code, out, errs, failures(t, db))
	}
	if !strings.Contains(out, "fleet default: "+itoa(n)+"/"+itoa(n)+" done, 0 failed, 0 pending") {
		t.Errorf("fleet run's summary:\n%s", out[max(0, len(out)-400):])
	}
	checkFleetDone(t, f, db)
	// A second run finds nothing to do and touches no host.
	runs := f.Clusters[0].Hosts[0].KubeadmRuns()
	if code, out, _ := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories); code != 0 || !strings.Contains(out, "this runner: 0 done") {
		t.Errorf("second fleet run: exit %d\n%s", code, out)
	}
	if r := f.Clusters[0].Hosts[0].KubeadmRuns(); r != runs {
		t.Errorf("the second run ran kubeadm %d more times", r-runs)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
