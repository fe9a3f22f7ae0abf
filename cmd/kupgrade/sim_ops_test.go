package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/killcheck"
	"github.com/kupgrade/kupgrade/internal/sim"
)

// background is a kupgrade started and not yet waited for.
type background struct {
	cmd  *exec.Cmd
	out  *bytes.Buffer
	done bool
}

// start runs kupgrade on cluster i in the background; the test's end kills it if still running.
func (c *simLab) start(t *testing.T, i int, args ...string) *background {
	t.Helper()
	b := &background{cmd: c.cmd(t.Context(), i, args...), out: &bytes.Buffer{}}
	b.cmd.Stdout, b.cmd.Stderr = b.out, b.out
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.stop(syscall.SIGKILL) })
	return b
}

// wait waits for b's end and returns its exit status.
func (b *background) wait() int {
	if !b.done {
		b.done = true
		_ = b.cmd.Wait()
	}
	return b.cmd.ProcessState.ExitCode()
}

// stop sends sig to b, unless it already ended, and waits for its end.
func (b *background) stop(sig syscall.Signal) {
	if !b.done {
		_ = b.cmd.Process.Signal(sig)
		b.wait()
	}
}

// waitForHang waits until h's one-shot hang fault has fired (kubeadm removed it) and kubeadm
// runs: b is then in the middle of kubeadm.
func waitForHang(t *testing.T, h *sim.Host, b *background) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, armed := h.File(sim.FaultFile); !armed && h.RunningKubeadm() > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubeadm never reached the hang on %s; kupgrade said:\n%s", h.Name, b.out)
		}
	}
}

// shownUpgrade is `kupgrade upgrade show -o json` (docs/cli.md), what the scenarios read of it.
type shownUpgrade struct {
	State string `json:"state"`
	Lease *struct {
		Owner     string    `json:"owner"`
		Operation string    `json:"operation"`
		ExpiresAt time.Time `json:"expires_at"`
	} `json:"lease"`
}

// show is cluster i's upgrade as `upgrade show -o json` prints it.
func (c *simLab) show(t *testing.T, i int) shownUpgrade {
	t.Helper()
	var v shownUpgrade
	cmd := c.cmd(t.Context(), i, "upgrade", "show", "-o", "json")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil {
		err = json.Unmarshal(out, &v)
	}
	if err != nil {
		t.Fatalf("upgrade show -o json: %v\n%s%s", err, out, stderr.String())
	}
	return v
}

// image is the database as an operator would look at it (killcheck.Image).
func (c *simLab) image(t *testing.T) string {
	t.Helper()
	s, err := killcheck.Image(t.Context(), c.db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newestFailure is the newest state change of the database (killcheck.NewestFailure).
func (c *simLab) newestFailure(t *testing.T) killcheck.Failure {
	t.Helper()
	f, err := killcheck.NewestFailure(t.Context(), c.db)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// expireLease moves the expiry of every lease of the database to its last heartbeat: for
// whoever reads it next, the lease has expired, as if its TTL had passed on the wall clock
// (SQLite's clock is this machine's, which a test does not move).
func (c *simLab) expireLease(t *testing.T) {
	t.Helper()
	db, err := sql.Open("sqlite", c.dbPath+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.ExecContext(t.Context(), `UPDATE upgrade_lease SET expires_at = heartbeat_at`)
	if n, _ := res.RowsAffected(); err != nil || n == 0 {
		t.Fatalf("expire the lease: %d rows, %v", n, err)
	}
}

// hangAtSecondMaster upgrades cluster 0 of l through the first controller, then starts
// controller-1's control-plane step in the background with its kubeadm made to hang after the
// control-plane phase, and waits until it hangs there.
func (c *simLab) hangAtSecondMaster(t *testing.T) (*sim.Host, *background) {
	t.Helper()
	c.want(t, 0, 0, "upgrade", "start", "v1.30.1")
	c.want(t, 0, 0, "upgrade", "run", "--until", "upgraded-first-master")
	c1 := c.host(0, "controller-1")
	if err := c1.InjectFault(sim.Fault{Phase: "control-plane", Action: sim.Hang, Once: true}); err != nil {
		t.Fatal(err)
	}
	up := c.start(t, 0, "host", "upgrade", "controller-1", "control-plane")
	waitForHang(t, c1, up)
	return c1, up
}
