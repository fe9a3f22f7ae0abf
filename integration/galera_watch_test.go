//go:build integration

package integration_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// lockedBuffer is a bytes.Buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// watcher is a `kupgrade watch` process on one node.
type watcher struct {
	node int
	cmd  *exec.Cmd
	out  *lockedBuffer
}

func (w *watcher) auditing() bool { return strings.Contains(w.out.String(), "holding the audit lock") }

// startGaleraWatch starts `kupgrade watch` against dsn with a short audit lease.
func startGaleraWatch(t *testing.T, node int, dsn string) *watcher {
	t.Helper()
	c := exec.CommandContext(t.Context(), filepath.Join(binaries(t), "kupgrade"), "watch", "--interval", "1s")
	out := &lockedBuffer{}
	c.Env = append(os.Environ(), "KUPGRADE_DB="+dsn, "KUPGRADE_LEASE_TTL=4s", "HOME="+t.TempDir())
	c.Stdout, c.Stderr, c.Dir = out, out, t.TempDir()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	return &watcher{node: node, cmd: c, out: out}
}

// Two `kupgrade watch` on two Galera nodes: one audits, the other waits (GET_LOCK, node-local on
// Galera, would have let both audit); SIGKILL the auditor and the other takes over once the
// dead one's lease (4 s here) has expired, as the lock row on the third node shows.
func TestGaleraOneAuditor(t *testing.T) {
	t.Parallel()
	lab.RequireGalera(t)
	g := lab.StartGalera(t)
	db := mysqlBackend(t, galeraDSN(g.Nodes[2])+"&wsrep_sync_wait=7").DB
	ws := []*watcher{startGaleraWatch(t, 1, g.Nodes[0].URL()), startGaleraWatch(t, 2, g.Nodes[1].URL())}
	var holder, other *watcher
	for deadline := time.Now().Add(time.Minute); holder == nil && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		for i, w := range ws {
			if w.auditing() {
				holder, other = w, ws[1-i]
			}
		}
	}
	if holder == nil {
		t.Fatalf("no watcher audits:\n%s\n%s", ws[0].out, ws[1].out)
	}
	time.Sleep(6 * time.Second) // longer than the lease: the waiting one must still wait
	if other.auditing() {
		t.Fatalf("both watchers audit at once:\nnode 1:\n%s\nnode 2:\n%s", ws[0].out, ws[1].out)
	}
	if !strings.Contains(other.out.String(), "waiting to take over") {
		t.Fatalf("the second watcher does not say it waits:\n%s", other.out)
	}
	var rowHolder string
	var gen int
	if err := db.QueryRow("SELECT holder, generation FROM kupgrade_lock WHERE name = 'audit'").Scan(&rowHolder, &gen); err != nil {
		t.Fatalf("read the lock row on node 3: %v", err)
	}
	if !strings.Contains(rowHolder, ":"+strconv.Itoa(holder.cmd.Process.Pid)+":") {
		t.Fatalf("the lock row on node 3 names %s, want the auditing watcher (pid %d)", rowHolder, holder.cmd.Process.Pid)
	}
	killed := time.Now()
	_ = holder.cmd.Process.Kill()
	for !other.auditing() && time.Since(killed) < time.Minute {
		time.Sleep(100 * time.Millisecond)
	}
	if !other.auditing() {
		t.Fatalf("the watcher on node %d did not take over within a minute of the auditor's SIGKILL:\n%s", other.node, other.out)
	}
	t.Logf("the watcher on node %d took over %s after the SIGKILL of the one on node %d (lease 4 s, interval 1 s)",
		other.node, time.Since(killed).Round(100*time.Millisecond), holder.node)
	var newGen int
	if err := db.QueryRow("SELECT holder, generation FROM kupgrade_lock WHERE name = 'audit'").Scan(&rowHolder, &newGen); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rowHolder, ":"+strconv.Itoa(other.cmd.Process.Pid)+":") || newGen != gen+1 {
		t.Fatalf("after the takeover the lock row is %s generation %d, want pid %d generation %d", rowHolder, newGen, other.cmd.Process.Pid, gen+1)
	}
}
