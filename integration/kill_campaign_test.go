//go:build integration

package integration_test

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// SIGKILL of `upgrade run` at random moments of a whole 2+1 upgrade, seeded: after every kill the
// database is consistent (nothing in flight without a lease, the newest event leads to the
// state), `recover` and `upgrade run` finish the upgrade on the nodes, and over the whole
// campaign the event log has no hole (every state change starts where the previous one ended).
// The kills are shared among KUPGRADE_FAULT_SHARDS labs that run side by side (default 2), each
// with its own database and seed (KUPGRADE_FAULT_SEED plus the shard's number). make test runs 10
// (KUPGRADE_FAULT_KILLS): its 100 kills of the same campaign run on simulated clusters
// (TestSimKillCampaign in cmd/kupgrade), and these on sshd, sudo, bash and the lab's packages and
// drains; make faults runs 200 here among 8 labs.
func TestFaultKillAtRandomMoments(t *testing.T) {
	t.Parallel()
	kills := envInt(t, "KUPGRADE_FAULT_KILLS", 10)
	shards := max(envInt(t, "KUPGRADE_FAULT_SHARDS", 2), 1)
	seed := envInt(t, "KUPGRADE_FAULT_SEED", 20261203)
	for s := range shards {
		n := kills/shards + btoi(s < kills%shards)
		t.Run(fmt.Sprintf("shard-%d", s), func(t *testing.T) {
			t.Parallel()
			killCampaignShard(t, n, seed+s)
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// killCampaignShard is one lab's share of the campaign: kills SIGKILLs, seeded by seed.
func killCampaignShard(t *testing.T, kills, seed int) {
	rng := rand.New(rand.NewPCG(uint64(seed), 13))
	// The lab outlives the default test expiry: on a loaded machine the campaign takes longer.
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1, Expire: 2 * time.Hour})
	u.k.env = append(u.k.env, "KUPGRADE_LEASE_TTL=2s")
	t.Cleanup(func() {
		if t.Failed() {
			u.dumpForDiagnosis(t)
		}
	})
	// Round 0 measures a whole upgrade, the window the kills are spread over.
	u.k.wantExit(t, 0, "upgrade", "start", patch(1))
	began := time.Now()
	u.k.wantExit(t, 0, "upgrade", "run")
	window := time.Since(began)
	u.k.wantExit(t, 0, "upgrade", "delete")
	t.Logf("seed %d: a whole upgrade takes %s; %d kills spread over it", seed, window.Round(time.Millisecond), kills)
	var c killCampaign
	for i := range kills {
		u.killOnce(t, &c, i, time.Duration(rng.Int64N(int64(window))))
	}
	u.judgeCampaign(t, c, seed)
}

// killOnce starts an upgrade to the next patch, kills its run at, checks the database, recovers
// what the kill left in flight and finishes the upgrade.
func (u *labUnderTest) killOnce(t *testing.T, c *killCampaign, i int, at time.Duration) {
	t.Helper()
	target := patch(i + 2)
	u.k.wantExit(t, 0, "upgrade", "start", target)
	cmd, wait := u.k.start(t, "upgrade", "run")
	time.Sleep(at)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	code, _ := wait()
	c.kills++
	if code == 0 {
		c.finishedFirst++
	}
	if u.consistentAfterKill(t, i, at) {
		c.consistent++
	}
	if u.k.show(t).Lease != nil || inFlight(t, u.db) {
		c.inFlight++
		time.Sleep(2500 * time.Millisecond) // the dead runner's lease expires
		u.k.wantExit(t, 0, "recover")
		c.retried++
	}
	u.finish(t, target)
	for _, n := range u.lab.Nodes() {
		requireNoKubeadm(t, n)
	}
	u.k.wantExit(t, 0, "upgrade", "delete")
}

// judgeCampaign checks what the whole campaign must leave: no hole in the event log, no node that
// ever ran two kubeadm at once, every kill followed by a consistent database.
func (u *labUnderTest) judgeCampaign(t *testing.T, c killCampaign, seed int) {
	t.Helper()
	holes := eventHoles(t, u.db)
	twice := 0
	for _, n := range u.lab.Nodes() {
		if max, err := n.KubeadmMaxConcurrent(t.Context()); err != nil || max > 1 {
			t.Errorf("%s ran %d kubeadm at once (%v), want at most 1", n.Name, max, err)
			twice++
		}
	}
	t.Logf("kill campaign (seed %d): %d kills, %d left an operation in flight (recovered and finished), %d found it done, %d/%d consistent, %d event-log holes, %d nodes that ever ran two kubeadm at once",
		seed, c.kills, c.inFlight, c.finishedFirst, c.consistent, c.kills, len(holes), twice)
	for _, h := range holes {
		t.Errorf("event log hole: %s", h)
	}
	if c.consistent != c.kills {
		t.Errorf("%d of %d kills left the database inconsistent", c.kills-c.consistent, c.kills)
	}
}
