package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/killcheck"
)

// SIGKILL of `upgrade abort` at seeded random moments of its window, after both controllers were
// upgraded, on simulated clusters (one per kill): after every kill the database is consistent;
// an abort left in flight is failed by `recover --force` (its process is gone) into
// upgrade-aborting-failed, as any other operation; and the abort run again ends upgrade-aborted
// with every controller back at the starting version, whatever part of the restore the killed
// one did. KUPGRADE_ABORT_KILLS (default 40, 8 with -short), KUPGRADE_SIM_SHARDS and
// KUPGRADE_FAULT_SEED reproduce a campaign; the Docker lab runs a few of the same kills on sshd
// and bash (TestFaultKillInsideTheAbort).
func TestSimKillInsideTheAbort(t *testing.T) {
	t.Parallel()
	kills, shards := killcheck.Setting(t, "KUPGRADE_ABORT_KILLS", 40), max(killcheck.Setting(t, "KUPGRADE_SIM_SHARDS", 4), 1)
	if testing.Short() && os.Getenv("KUPGRADE_ABORT_KILLS") == "" {
		kills = 8
	}
	seed := killcheck.Setting(t, "KUPGRADE_FAULT_SEED", 20261204)
	inShards(t, kills, shards, func(t *testing.T, s, n int) { newSimCampaign(t, n).abortCampaign(t, seed+s) })
}

// abortCampaign measures a whole abort on cluster 0, then kills one abort on each other cluster.
func (c *simCampaign) abortCampaign(t *testing.T, seed int) {
	rng := rand.New(rand.NewPCG(uint64(seed), 24))
	c.upgradeToSecondMaster(t, 0)
	began := time.Now()
	c.want(t, 0, 0, "upgrade", "abort", "-y")
	window := time.Since(began)
	c.requireAborted(t, 0)
	for i := 1; i <= c.kills; i++ {
		c.killAbort(t, i, time.Duration(rng.Int64N(int64(window))))
	}
	t.Logf("seed %d: an abort takes %s; %d kills, %d left the abort in flight (recovered, then aborted again)",
		seed, window.Round(time.Millisecond), c.kills, c.flying)
}

func (c *simCampaign) upgradeToSecondMaster(t *testing.T, i int) {
	t.Helper()
	c.want(t, i, 0, "upgrade", "start", "v1.30.1")
	c.want(t, i, 0, "upgrade", "run", "--until", "upgraded-second-master")
}

// killAbort kills cluster i's abort at, judges the database, fails an abort left in flight
// through recover and aborts again until the cluster is back.
func (c *simCampaign) killAbort(t *testing.T, i int, at time.Duration) {
	t.Helper()
	c.upgradeToSecondMaster(t, i)
	abort := c.start(t, i, "upgrade", "abort", "-y")
	time.Sleep(at)
	abort.stop(syscall.SIGKILL)
	problems, err := killcheck.Problems(t.Context(), c.db)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("kill %d at %s: %s", i, at, p)
	}
	if c.state(t, i) == "upgrade-aborting" {
		c.flying++
		c.want(t, i, 0, "recover", "--force")
		if got := c.state(t, i); got != "upgrade-aborting-failed" {
			t.Fatalf("kill %d at %s: recover left %s, want upgrade-aborting-failed", i, at, got)
		}
	}
	if c.state(t, i) != "upgrade-aborted" {
		c.want(t, i, 0, "upgrade", "abort", "-y")
	}
	c.requireAborted(t, i)
}

// requireAborted checks cluster i after its abort: upgrade-aborted, every controller's manifests
// and kubeadm back at v1.29.4, the host table saying so.
func (c *simCampaign) requireAborted(t *testing.T, i int) {
	t.Helper()
	if got := c.state(t, i); got != "upgrade-aborted" {
		t.Fatalf("%s: state %s after the abort, want upgrade-aborted", c.f.Clusters[i].Name, got)
	}
	for _, h := range c.f.Clusters[i].Hosts {
		if !h.Controller {
			continue
		}
		for _, comp := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
			if m, _ := h.File("/etc/kubernetes/manifests/" + comp + ".yaml"); !strings.Contains(m, ":v1.29.4\n") {
				t.Errorf("%s/%s: %s's manifest is not back at v1.29.4:\n%s", c.f.Clusters[i].Name, h.Name, comp, m)
			}
		}
		if v, _ := h.File("/var/lib/kupgrade-lab/kubeadm-version"); strings.TrimSpace(v) != "v1.29.4" {
			t.Errorf("%s/%s: kubeadm %q after the abort, want v1.29.4", c.f.Clusters[i].Name, h.Name, v)
		}
	}
	back := c.count(t, fmt.Sprintf(`SELECT COUNT(*) FROM host WHERE cluster = '%s' AND personality = 'controller' AND control_plane_version = 'v1.29.4'`, c.f.Clusters[i].Name))
	if back != 2 {
		t.Errorf("%s: host table has %d controllers at v1.29.4 after the abort, want 2", c.f.Clusters[i].Name, back)
	}
}
