package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/state"
)

// The progress line counts the whole fleet and gives the estimate once a cluster is done.
func TestFleetProgressLine(t *testing.T) {
	s := fleet.Overview{Total: 30, Claimed: 5, Outcomes: map[state.FleetOutcome]int{state.FleetDone: 12, state.FleetFailed: 1}, Left: 7 * time.Minute}
	if got, want := progressLine(s, 250*time.Second+300*time.Millisecond), "PROGRESS  12/30 done  1 failed  5 running  elapsed 4m10s  left about 7m0s\n"; got != want {
		t.Errorf("progress line %q, want %q", got, want)
	}
	s = fleet.Overview{Total: 30, Outcomes: map[state.FleetOutcome]int{}}
	if got := progressLine(s, time.Second); !strings.Contains(got, "0/30 done") || !strings.Contains(got, "left unknown until a cluster is done") {
		t.Errorf("progress line before any cluster is done: %q", got)
	}
}

// A fleet run prints progress lines while it runs (here every 20ms), none with --progress 0 nor
// with -o json.
func TestFleetRunPrintsProgress(t *testing.T) {
	f := startFleet(t, 6, nil)
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	code, out, errs := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories, "--max-parallel", "2", "--progress", "20ms")
	if code != 0 || !strings.Contains(out, "PROGRESS  ") || !strings.Contains(out, "/6 done") {
		t.Fatalf("fleet run: exit %d, no progress line\n%s\n%s", code, out, errs)
	}
	f2 := startFleet(t, 2, nil)
	db2 := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	for _, args := range [][]string{{"--progress", "0"}, {"-o", "json", "--progress", "20ms"}} {
		a := append([]string{"--db", db2}, args[:len(args)-2]...)
		a = append(a, "fleet", "run", "--to", "v1.30.1", "--inventories", f2.Inventories)
		a = append(a, args[len(args)-2:]...)
		if _, out, _ := kupgrade(t, a...); strings.Contains(out, "PROGRESS") {
			t.Errorf("%v: a progress line:\n%s", args, out)
		}
	}
}
