//go:build integration

package integration_test

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// SIGKILL of `upgrade abort` at random moments of its window (seeded), after both controllers
// were upgraded: after every kill the database is consistent (nothing in flight without a lease,
// the newest event leads to the state); an abort left in flight is failed by `recover` once its
// lease expires, as any other operation, into upgrade-aborting-failed; and the abort run again
// ends upgrade-aborted with every controller back at the starting version, whatever part of the
// restore the killed one did. KUPGRADE_ABORT_KILLS (default 2 here, on sshd, sudo and bash; make
// faults runs 12) and KUPGRADE_FAULT_SEED reproduce a run; `go test ./cmd/kupgrade -run
// TestSimKillInsideTheAbort` runs 40 of the same kills on simulated clusters.
func TestFaultKillInsideTheAbort(t *testing.T) {
	t.Parallel()
	kills := envInt(t, "KUPGRADE_ABORT_KILLS", 2)
	seed := envInt(t, "KUPGRADE_FAULT_SEED", 20261204)
	rng := rand.New(rand.NewPCG(uint64(seed), 24))
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1})
	u.k.env = append(u.k.env, "KUPGRADE_LEASE_TTL=2s")

	// Round 0 measures a whole abort, the window the kills are spread over.
	u.begin(t, patch(1), "upgraded-second-master")
	began := time.Now()
	u.k.wantExit(t, 0, "upgrade", "abort", "-y")
	window := time.Since(began)
	u.wantAborted(t)
	t.Logf("seed %d: an abort takes %s; %d kills spread over it", seed, window.Round(time.Millisecond), kills)

	inFlightKills := 0
	for i := range kills {
		u.k.wantExit(t, 0, "upgrade", "delete")
		u.begin(t, patch(1), "upgraded-second-master")
		cmd, wait := u.k.start(t, "upgrade", "abort", "-y")
		at := time.Duration(rng.Int64N(int64(window)))
		time.Sleep(at)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_, _ = wait()
		u.consistentAfterKill(t, i, at)
		if u.k.show(t).State == "upgrade-aborting" {
			inFlightKills++
			time.Sleep(2500 * time.Millisecond) // the dead runner's lease expires
			u.k.wantExit(t, 0, "recover")
			if got := u.k.show(t).State; got != "upgrade-aborting-failed" {
				t.Fatalf("kill %d at %s: recover left %s, want upgrade-aborting-failed", i, at, got)
			}
		}
		if u.k.show(t).State != "upgrade-aborted" {
			u.k.wantExit(t, 0, "upgrade", "abort", "-y")
		}
		u.wantAborted(t)
	}
	t.Logf("abort kill campaign (seed %d): %d kills, %d left the abort in flight (recovered, then aborted again)", seed, kills, inFlightKills)
}
