package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A mistyped --fleet does not move a fleet's clusters into a new fleet: the run is refused
// (exit 3) with the fleet meant, and joins nothing; --move moves them. Each cluster's start
// has its own line.
func TestFleetRunDoesNotMoveClustersOfAnotherFleet(t *testing.T) {
	f := startFleet(t, 3, nil)
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	fleetRun := func(args ...string) (int, string, string) {
		return kupgrade(t, append([]string{"--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories, "--until", "upgraded-networking"}, args...)...)
	}
	code, out, errs := fleetRun("--fleet", "edge")
	if code != 0 || len(regexp.MustCompile(`(?m)^c000\d +START$`).FindAllString(out, -1)) != 3 {
		t.Fatalf("fleet run --fleet edge: exit %d, want 0 and a START line per cluster\n%s%s", code, out, errs)
	}
	code, _, errs = fleetRun("--fleet", "edg")
	if code != exitRefused || !strings.Contains(errs, "would move 3 cluster(s) out of fleet edge") || !strings.Contains(errs, "did you mean --fleet edge?") ||
		!strings.Contains(errs, "pass --move") {
		t.Fatalf("fleet run --fleet edg: exit %d, want %d naming fleet edge\n%s", code, exitRefused, errs)
	}
	if s := fleetShow(t, db); s.Fleet != "edge" || s.Total != 3 {
		t.Errorf("after the refused run: fleet %s with %d clusters, want edge with 3", s.Fleet, s.Total)
	}
	if code, out, errs := fleetRun("--fleet", "edg", "--move"); code != 0 {
		t.Fatalf("fleet run --fleet edg --move: exit %d\n%s%s", code, out, errs)
	}
	if s := fleetShow(t, db); s.Fleet != "edg" || s.Total != 3 {
		t.Errorf("after --move: fleet %s with %d clusters, want edg with 3", s.Fleet, s.Total)
	}
}
