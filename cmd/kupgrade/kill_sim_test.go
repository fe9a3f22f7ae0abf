package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/killcheck"
	"github.com/kupgrade/kupgrade/internal/sim"
)

// SIGKILL of `upgrade run` at seeded random moments of whole 2+1 upgrades of simulated clusters:
// kupgrade runs as its own process (this test binary, as the scripts run it), the nodes are the
// simulator's, in this process. After every kill the database is consistent (nothing in flight
// without a lease, every upgrade's newest state change leads to its state); `recover --force`,
// which fails a live lease whose process is gone, and `upgrade run` finish the upgrade on
// the nodes; no node ever ran two kubeadm at once; the event log has no hole. The kills are
// shared among shards that run side by side, each with its own simulated clusters and database.
// KUPGRADE_SIM_KILLS (default 100, 20 with -short), KUPGRADE_SIM_SHARDS (4) and KUPGRADE_FAULT_SEED reproduce a
// campaign; make faults runs the Docker lab's.
func TestSimKillCampaign(t *testing.T) {
	t.Parallel()
	kills, shards := killcheck.Setting(t, "KUPGRADE_SIM_KILLS", 100), max(killcheck.Setting(t, "KUPGRADE_SIM_SHARDS", 4), 1)
	if testing.Short() && os.Getenv("KUPGRADE_SIM_KILLS") == "" {
		kills = 20 // make check; make test runs the 100
	}
	seed := killcheck.Setting(t, "KUPGRADE_FAULT_SEED", 20261207)
	inShards(t, kills, shards, func(t *testing.T, s, n int) { newSimCampaign(t, n).run(t, seed+s) })
}

// inShards shares kills among shards subtests that run side by side: shard s gets n of them.
func inShards(t *testing.T, kills, shards int, shard func(t *testing.T, s, n int)) {
	for s := range shards {
		n := kills/shards + btoi(s < kills%shards)
		t.Run(fmt.Sprintf("shard-%d", s), func(t *testing.T) {
			t.Parallel()
			shard(t, s, n)
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// simCampaign is one shard: one simulated cluster per kill (and one for the measure), one
// database for them all.
type simCampaign struct {
	*simLab
	kills  int
	flying int // kills that left an operation in flight
}

// leaseTTL is the campaign's lease: long enough that a kill always leaves it live.
const leaseTTL = time.Minute

func newSimCampaign(t *testing.T, kills int) *simCampaign {
	t.Helper()
	c := &simCampaign{simLab: startSim(t, sim.Options{Clusters: kills + 1, KubeadmDelay: 100 * time.Millisecond}), kills: kills}
	c.env = append(c.env, "KUPGRADE_LEASE_TTL="+leaseTTL.String())
	return c
}

func (c *simCampaign) run(t *testing.T, seed int) {
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	began := time.Now()
	c.want(t, 0, 0, "upgrade", "start", "v1.30.1")
	c.want(t, 0, 0, "upgrade", "run", "-y")
	window := time.Since(began)
	c.requireAt(t, 0, "v1.30.1")
	for i := 1; i <= c.kills; i++ {
		c.killOnce(t, i, time.Duration(rng.Int64N(int64(window))))
	}
	holes, err := killcheck.EventHoles(t.Context(), c.db)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range holes {
		t.Errorf("event log hole: %s", h)
	}
	t.Logf("seed %d: a whole upgrade takes %s; %d kills, %d left an operation in flight (recovered and finished)",
		seed, window.Round(time.Millisecond), c.kills, c.flying)
}

// killOnce upgrades cluster i, kills the run at, judges the database, recovers what the kill left
// in flight and finishes the upgrade.
func (c *simCampaign) killOnce(t *testing.T, i int, at time.Duration) {
	t.Helper()
	c.want(t, i, 0, "upgrade", "start", "v1.30.1")
	cmd := c.cmd(t.Context(), i, "upgrade", "run", "-y")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(at)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	problems, err := killcheck.Problems(t.Context(), c.db)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("kill %d at %s: %s", i, at, p)
	}
	if flying, err := killcheck.InFlight(t.Context(), c.db); err != nil || flying {
		c.flying++
		// The dead runner's lease is live until its TTL; recover sees that its process is gone
		// (this machine's) and --force fails the operation now, as an operator would, instead
		// of waiting out the TTL on the wall clock.
		c.want(t, i, 0, "recover", "--force")
	}
	c.want(t, i, 0, "upgrade", "run", "-y")
	c.requireAt(t, i, "v1.30.1")
}
