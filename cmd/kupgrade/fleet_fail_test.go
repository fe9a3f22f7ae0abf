package main

import (
	"encoding/json"
	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/recovery"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

func every(n int) func(int) bool { return func(i int) bool { return i%n == 1 } }

// A late kubeadm failure (after kubelet-config, on the second controller) fails its cluster with
// the probe's finding; a second fleet run completes it.
func TestFleetLateFailureThenSecondRun(t *testing.T) {
	f := startFleet(t, 10, every(5))
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	code, out, _ := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories)
	if code != 1 {
		t.Fatalf("fleet run with late failures: exit %d, want 1\n%s", code, out)
	}
	for _, c := range []string{"c0001", "c0006"} {
		line := out[max(regexp.MustCompile(`(?m)^` + c + ` +[A-Z]+ +\S`).FindStringIndex(out)[0], 0):] // its end's line, not its START
		if !strings.HasPrefix(line, c) || !strings.Contains(line[:600], "FAILED") || !strings.Contains(line[:600], "upgrading-second-master-failed") ||
			!strings.Contains(line[:600], "kubelet-config-rewritten") {
			t.Errorf("%s's line does not say it failed late with the finding:\n%s", c, line[:min(len(line), 600)])
		}
	}
	s := fleetShow(t, db)
	if s.Outcomes[state.FleetFailed] != 2 || len(s.Failing) != 2 || s.States[string(state.UpgradingSecondMaster)+"-failed"] != 2 {
		t.Errorf("fleet show: outcomes %v, states %v, failing %v", s.Outcomes, s.States, s.Failing)
	}
	// The fleet table's next command is the one the status page and upgrade show give a member.
	next := "kupgrade fleet run --fleet default --to v1.30.1 --inventories " + recovery.FleetInventoriesWord
	_, table, _ := kupgrade(t, "--db", db, "fleet", "show")
	if len(s.Failing) == 0 || s.Failing[0].Next != next || !strings.Contains(table, "\nnext: "+next+"\n") {
		t.Errorf("fleet show does not give the failed clusters' next command %q:\n%+v\n%s", next, s.Failing, table)
	}
	if code, out, _ := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories); code != 0 || !strings.Contains(out, "this runner: 2 done") {
		t.Fatalf("second fleet run: exit %d\n%s", code, out)
	}
	checkFleetDone(t, f, db)
}

// --retries retries the failed step within the same run.
func TestFleetLateFailureRetries(t *testing.T) {
	f := startFleet(t, 10, every(4))
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	if code, out, errs := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories, "--retries", "1"); code != 0 {
		t.Fatalf("fleet run --retries 1: exit %d\n%s\n%s", code, out, errs)
	}
	checkFleetDone(t, f, db)
}

// --canary: the rest of the fleet waits for the first clusters and is not started when one fails.
func TestFleetCanaryStops(t *testing.T) {
	f := startFleet(t, 6, func(i int) bool { return i == 1 })
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	code, out, _ := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories, "--canary", "2")
	if code != 1 || !strings.Contains(out, "1 of the 2 canary cluster(s) failed") {
		t.Fatalf("fleet run --canary 2: exit %d\n%s", code, out)
	}
	if s := fleetShow(t, db); s.States["not-started"] != 4 || s.Outcomes[state.FleetDone] != 1 {
		t.Errorf("after a failed canary: states %v outcomes %v, want 4 not started", s.States, s.Outcomes)
	}
}

// --max-failures: no new cluster once that many failed.
func TestFleetMaxFailures(t *testing.T) {
	f := startFleet(t, 6, func(i int) bool { return i < 3 })
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	code, out, _ := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories, "--max-failures", "2", "--max-parallel", "1")
	if code != 1 || !strings.Contains(out, "2 cluster(s) failed, --max-failures is 2") {
		t.Fatalf("fleet run --max-failures 2: exit %d\n%s", code, out)
	}
	if s := fleetShow(t, db); s.Outcomes[state.FleetFailed] != 2 || s.States["not-started"] != 4 {
		t.Errorf("after --max-failures: states %v outcomes %v", s.States, s.Outcomes)
	}
}

// Bad input names the file and the fix, and exits 2 before any database is made.
func TestFleetBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, cluster string) string {
		p := filepath.Join(dir, name)
		body := "all:\n  hosts:\n    h1: {ansible_host: 127.0.0.1}\n"
		if cluster != "" {
			body = "all:\n  vars:\n    kupgrade_cluster: " + cluster + "\n  hosts:\n    h1: {ansible_host: 127.0.0.1}\n"
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b, none := write("a.yml", "east"), write("b.yml", "east"), write("none.yml", "")
	db := filepath.Join(t.TempDir(), "k.db")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-i", none}, []string{none, "names no cluster", "kupgrade_cluster"}},
		{[]string{"-i", a, "-i", b}, []string{a, b, `both name cluster "east"`}},
		{[]string{"--inventories", filepath.Join(dir, "missing")}, []string{filepath.Join(dir, "missing"), "one inventory (file or folder) per cluster"}},
	} {
		code, _, errs := kupgrade(t, append([]string{"--db", "sqlite:" + db, "fleet", "run", "--to", "v1.30.1"}, tc.args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", tc.args, code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: %q does not say %q", tc.args, errs, w)
			}
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("bad input created the database")
	}
}

// The status page and /metrics of `watch` show the fleet: counts, the failed cluster and why.
func TestFleetOnStatusPageAndMetrics(t *testing.T) {
	f := startFleet(t, 4, func(i int) bool { return i == 2 })
	dbFile := filepath.Join(t.TempDir(), "k.db")
	kupgrade(t, "--db", "sqlite:"+dbFile, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories)
	g := &Globals{DB: "sqlite:" + dbFile, Inventory: []string{filepath.Join(t.TempDir(), "none.yml")}, Output: "table", LogLevel: "info", LogFormat: "text"}
	addr, _, _ := startWatch(t, g)
	metrics := get(t, addr, "/metrics")
	for _, want := range []string{
		`kupgrade_fleet_outcome_clusters{fleet="default",outcome="done"} 3`,
		`kupgrade_fleet_outcome_clusters{fleet="default",outcome="failed"} 1`,
		`kupgrade_fleet_clusters{fleet="default",state="upgrading-second-master-failed"} 1`,
		`kupgrade_fleet_failing_clusters{fleet="default"} 1`,
		`kupgrade_fleet_progress_ratio{fleet="default"} 0.75`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	var st struct {
		Fleets []fleet.Overview `json:"fleets"`
	}
	if err := json.Unmarshal([]byte(get(t, addr, "/status.json")), &st); err != nil || len(st.Fleets) != 1 {
		t.Fatalf("/status.json fleets: %v %v", st.Fleets, err)
	}
	if fl := st.Fleets[0]; fl.FailingCount != 1 || fl.Failing[0].Cluster != "c0002" || !strings.Contains(fl.Failing[0].LastError, "kubelet-config") {
		t.Errorf("/status.json: failing %v", fl.Failing)
	}
	if page := get(t, addr, "/"); !strings.Contains(page, `<table id="fleet-table">`) {
		t.Error("the status page has no fleet table")
	}
}

// A runner given some clusters of a fleet does those and ends, leaving the fleet's other pending
// clusters to the runners that have their inventories.
func TestFleetRunnerWithPartOfTheFleet(t *testing.T) {
	f := startFleet(t, 4, func(i int) bool { return i == 0 })
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	if code, out, _ := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories, "--canary", "1"); code != 1 {
		t.Fatalf("fleet run with a failing canary: exit %d\n%s", code, out)
	}
	code, out, errs := kupgrade(t, "--db", db, "--lease-ttl", "1s", "fleet", "run", "--to", "v1.30.1", "-i", filepath.Join(f.Inventories, "c0000.yml"))
	if code != 0 || !strings.Contains(out, "this runner: 1 done") || !strings.Contains(out, "1/4 done, 0 failed, 3 pending") {
		t.Fatalf("fleet run of one cluster of four: exit %d\n%s\n%s", code, out, errs)
	}
}

// A fleet stopped at --until goes on to the end with a run without it.
func TestFleetUntilThenTheRest(t *testing.T) {
	f := startFleet(t, 3, nil)
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	if code, out, _ := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories, "--until", "upgraded-first-master"); code != 0 {
		t.Fatalf("fleet run --until: exit %d\n%s", code, out)
	}
	if s := fleetShow(t, db); s.States[string(state.UpgradedFirstMaster)] != 3 {
		t.Fatalf("after --until upgraded-first-master: %v", s.States)
	}
	if code, out, _ := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories); code != 0 {
		t.Fatalf("fleet run to the end: exit %d\n%s", code, out)
	}
	checkFleetDone(t, f, db)
}
