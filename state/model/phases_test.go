package model

import (
	"strings"
	"testing"
)

// TestPhasesModelHolds proves phases.pml: over every interleaving of two runners walking one
// host's kubelet step in its phases, with kills, commands cut after part of their effect,
// expiring leases and the audit, no assertion fails (P1-P3 and the invariant) and no process is
// left blocked; and P4 has no fair acceptance cycle.
func TestPhasesModelHolds(t *testing.T) {
	for _, c := range []struct {
		name string
		live bool
	}{{"safety", false}, {"liveness", true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			requireHolds(t, check{model: "phases.pml", live: c.live}, "the kubelet step's phases", "phases "+c.name)
		})
	}
}

// TestPhasesBrokenVariantsFail takes one rule of the kubelet step away at a time and expects
// Spin to find the node it leaves cordoned, the kubelet it leaves unrestarted, the drain it
// repeats or the phase it leaves in flight.
func TestPhasesBrokenVariantsFail(t *testing.T) {
	const p1 = "assertion violated ((hs!=1)||( !(cord)&& !(mark)))"
	for _, c := range []struct {
		define string
		live   bool
		want   string // in pan's report
	}{
		{"SKIPBINARY", false, "assertion violated ((hs!=1)||(rkv==1))"}, // P2: marked on the binary, never restarted
		{"RETRYDRAINS", false, "!(fromuf[g])"},                          // P3: the uncordon's retry drains again
		{"NOSTAMP", false, p1},                                          // P1: a stale runner's cordon after the host is upgraded
		{"NOMARKGEN", false, p1},                                        // P1: a stale mark over a node a -f run cordoned (failed back to idle)
		{"UNMARKFIRST", false, p1},                                      // P1: a cut uncordon leaves a cordon with no mark
		{"OLDAUDIT", true, "acceptance cycle"},                          // P4: a host left draining-node stays in flight
	} {
		t.Run(c.define, func(t *testing.T) {
			t.Parallel()
			r := verify(t, check{model: "phases.pml", define: c.define, live: c.live})
			if r.errors == 0 || !strings.Contains(r.out, c.want) {
				t.Fatalf("-D%s: want %q and at least one error, Spin reported %d:\n%s", c.define, c.want, r.errors, r.out)
			}
			t.Logf("-D%s fails as it must: %s", c.define, c.want)
		})
	}
}
