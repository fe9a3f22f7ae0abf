package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
// KUPGRADE_SIM_KILLS (default 100), KUPGRADE_SIM_SHARDS (4) and KUPGRADE_FAULT_SEED reproduce a
// campaign; make faults runs the Docker lab's.
func TestSimKillCampaign(t *testing.T) {
	t.Parallel()
	kills, shards := envNumber(t, "KUPGRADE_SIM_KILLS", 100), max(envNumber(t, "KUPGRADE_SIM_SHARDS", 4), 1)
	seed := envNumber(t, "KUPGRADE_FAULT_SEED", 20261207)
	for s := range shards {
		n := kills / shards
		if s < kills%shards {
			n++
		}
		t.Run(fmt.Sprintf("shard-%d", s), func(t *testing.T) {
			t.Parallel()
			newSimCampaign(t, n).run(t, seed+s)
		})
	}
}

// simCampaign is one shard: one simulated cluster per kill (and one for the measure), one
// database for them all.
type simCampaign struct {
	f      *sim.Fleet
	env    []string
	db     *sql.DB
	kills  int
	flying int // kills that left an operation in flight
}

// leaseTTL is the campaign's lease: long enough that a kill always leaves it live.
const leaseTTL = time.Minute

func newSimCampaign(t *testing.T, kills int) *simCampaign {
	t.Helper()
	dir := t.TempDir()
	f, err := sim.Start(sim.Options{Clusters: kills + 1, Controllers: 2, Workers: 1, From: "v1.29.4", To: "v1.30.1",
		Dir: dir, KubeadmDelay: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	dbPath := filepath.Join(dir, "kupgrade.db")
	c := &simCampaign{f: f, kills: kills, env: append(os.Environ(), "KUPGRADE_DB=sqlite:"+dbPath, "HOME="+dir,
		"KUPGRADE_LOG_DIR="+filepath.Join(dir, "runs"), "KUPGRADE_LEASE_TTL="+leaseTTL.String())}
	c.want(t, 0, 0, "upgrade", "start", "v1.30.1") // creates the database
	if c.db, err = sql.Open("sqlite", dbPath+"?mode=ro&_pragma=busy_timeout(10000)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.db.Close() })
	return c
}

func (c *simCampaign) run(t *testing.T, seed int) {
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	began := time.Now()
	c.want(t, 0, 0, "upgrade", "run", "-y")
	window := time.Since(began)
	c.requireDone(t, 0)
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
	cmd := c.cmd(t, i, "upgrade", "run", "-y")
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
	c.requireDone(t, i)
}

// requireDone checks cluster i on its nodes: every kubelet runs the target, every controller's
// manifests are at it, no host ever ran two kubeadm at once.
func (c *simCampaign) requireDone(t *testing.T, i int) {
	t.Helper()
	for _, h := range c.f.Clusters[i].Hosts {
		if v, _ := h.File("/var/lib/kupgrade-lab/kubelet-running"); strings.TrimSpace(v) != "v1.30.1" {
			t.Errorf("%s/%s: kubelet runs %q after the upgrade, want v1.30.1", c.f.Clusters[i].Name, h.Name, v)
		}
		if m, _ := h.File("/etc/kubernetes/manifests/kube-apiserver.yaml"); h.Controller && !strings.Contains(m, ":v1.30.1") {
			t.Errorf("%s/%s: kube-apiserver's manifest is not at v1.30.1:\n%s", c.f.Clusters[i].Name, h.Name, m)
		}
		if n := h.MaxConcurrentKubeadm(); n > 1 {
			t.Errorf("%s/%s ran %d kubeadm at once, want at most 1", c.f.Clusters[i].Name, h.Name, n)
		}
	}
}

// cmd is kupgrade (this test binary) on cluster i's inventory.
func (c *simCampaign) cmd(t *testing.T, i int, args ...string) *exec.Cmd {
	inv := filepath.Join(c.f.Inventories, c.f.Clusters[i].Name+".yml")
	cmd := exec.CommandContext(t.Context(), "kupgrade", append([]string{"-i", inv}, args...)...)
	cmd.Env = c.env
	return cmd
}

// want runs kupgrade on cluster i and fails the test unless it exits with code.
func (c *simCampaign) want(t *testing.T, i, code int, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := c.cmd(t, i, args...)
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	if ctx.Err() != nil || cmd.ProcessState.ExitCode() != code {
		t.Fatalf("kupgrade %s on %s exited %d, want %d:\n%s", strings.Join(args, " "), c.f.Clusters[i].Name,
			cmd.ProcessState.ExitCode(), code, out.String())
	}
}

func envNumber(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: want a number", name, s)
	}
	return n
}
