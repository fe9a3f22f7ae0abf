//go:build integration

package integration_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/internal/killcheck"
	"github.com/kupgrade/kupgrade/internal/sim"
)

// The fault campaign of issue 13: the faults a hostile environment brings (SIGKILL at any
// moment, a database that goes away or hangs, machines whose clocks disagree), each reproduced in
// the lab and checked against the promise: an upgrade is never stranded and never runs twice.
// Every figure it reports is logged with the seed that reproduces it.

// startKupgrade starts kupgrade in the background; wait returns its exit status and output.
func (k *kupgrade) start(t *testing.T, args ...string) (c *exec.Cmd, wait func() (int, string)) {
	t.Helper()
	c, out := k.cmd(t.Context(), args...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c, func() (int, string) {
		_ = c.Wait()
		return c.ProcessState.ExitCode(), out.String()
	}
}

// waitForProcess waits until a process with pattern in its command line runs on n.
func waitForProcess(t *testing.T, n *lab.Node, pattern string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, ok := pgrep(t, n, pattern); ok {
			return
		}
	}
	t.Fatalf("%q never started on %s", pattern, n.Name)
}

// A database outage while kubeadm runs never interrupts it: kubeadm runs to its end, the next
// task waits for the lease to be confirmed again, and the outcome is recorded once the database
// is back. 10 s is shorter than kubeadm's run and longer than the lease's TTL; in the 60 s one
// kubeadm ends while the database is still down.
func TestFaultDatabaseOutageDuringKubeadm(t *testing.T) {
	t.Parallel()
	for _, outage := range []time.Duration{10 * time.Second, 60 * time.Second} {
		t.Run(outage.String(), func(t *testing.T) {
			t.Parallel()
			u, m, c := startSimMySQL(t)
			u.k.env = append(u.k.env, "KUPGRADE_LEASE_TTL=6s")
			u.begin(t, "v1.30.1", "upgraded-first-master")
			c1 := simHost(t, c, "controller-1")
			simFault(t, c1, sim.Fault{Phase: "control-plane", Action: sim.Delay, Seconds: 20, Once: true})
			_, wait := u.k.start(t, "host", "upgrade", "controller-1", "control-plane")
			waitForSimKubeadm(t, c1, true)
			if err := m.Stop(t.Context()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(outage)
			if err := m.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			code, out := wait()
			if code != 0 {
				t.Fatalf("host upgrade exited %d across a %s database outage, want 0:\n%s", code, outage, out)
			}
			if got := u.k.show(t).State; got != "upgraded-second-master" {
				t.Errorf("state %s after the outage, want upgraded-second-master", got)
			}
			if n := countRows(t, u.db, "SELECT COUNT(*) FROM kube_upgrade_event WHERE to_state = 'upgraded-second-master'"); n != 1 {
				t.Errorf("%d events recorded the success, want 1", n)
			}
			waitForSimKubeadm(t, c1, false)
			if got := simManifestVersion(t, c1); got != "v1.30.1" {
				t.Errorf("controller-1's manifests at %s: kubeadm did not run to its end", got)
			}
		})
	}
}

// Two machines whose clocks are a minute apart share one MariaDB: the runner's clock is a minute
// behind, the watcher's and a second runner's a minute ahead. (A container cannot have a wall
// clock of its own, so each kupgrade reads a shifted one through --clock-offset, the only place
// a machine's clock could enter a lease decision.) No healthy operation is failed, and the second
// runner is refused by the live lease instead of taking it over.
func TestFaultClocksAMinuteApart(t *testing.T) {
	t.Parallel()
	u, _, c := startSimMySQL(t)
	u.k.env = append(u.k.env, "KUPGRADE_LEASE_TTL=5s")
	u.begin(t, "v1.30.1", "upgraded-first-master")
	c1 := simHost(t, c, "controller-1")
	simFault(t, c1, sim.Fault{Phase: "control-plane", Action: sim.Delay, Seconds: 25, Once: true})
	_, wait := u.k.start(t, "--clock-offset=-60s", "host", "upgrade", "controller-1", "control-plane")
	waitForSimKubeadm(t, c1, true)
	// For more than two TTLs of the lease, while kubeadm still runs (25 s).
	for until := time.Now().Add(12 * time.Second); time.Now().Before(until); time.Sleep(2 * time.Second) {
		u.k.wantExit(t, 0, "--clock-offset=60s", "watch", "--once")
		if code, out := u.k.exit(t, "--clock-offset=60s", "host", "upgrade", "controller-1", "control-plane"); code != 4 {
			t.Errorf("a second runner a minute ahead exited %d, want 4 (the live lease):\n%s", code, out)
		}
	}
	if code, out := wait(); code != 0 {
		t.Fatalf("the runner a minute behind exited %d, want 0:\n%s", code, out)
	}
	if n := countRows(t, u.db, "SELECT COUNT(*) FROM kube_upgrade_event WHERE actor = 'watch'"); n != 0 {
		t.Errorf("the watcher a minute ahead failed %d healthy operations", n)
	}
	if got := u.k.show(t).State; got != "upgraded-second-master" {
		t.Errorf("state %s, want upgraded-second-master", got)
	}
}

// killCampaign is what TestFaultKillAtRandomMoments saw, for the figures of docs/reliability.md.
type killCampaign struct {
	kills, inFlight, finishedFirst, consistent, retried int
}

// patch is the i-th patch release after the lab's version: v1.29.4 -> v1.29.(4+i).
func patch(i int) string {
	v := strings.TrimPrefix(lab.DefaultVersion, "v1.29.")
	n, _ := strconv.Atoi(v)
	return fmt.Sprintf("v1.29.%d", n+i)
}

func envInt(t *testing.T, name string, def int) int { return killcheck.Setting(t, name, def) }

// inFlight reports whether the upgrade's state or any host status is in flight.
func inFlight(t *testing.T, db *sql.DB) bool {
	t.Helper()
	flying, err := killcheck.InFlight(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	return flying
}

// consistentAfterKill checks what a kill may leave (killcheck.Problems): something in flight
// only under a lease (the dead runner's, until it expires), and the newest state change leading
// to the stored state.
func (u *labUnderTest) consistentAfterKill(t *testing.T, round int, at time.Duration) bool {
	t.Helper()
	problems, err := killcheck.Problems(t.Context(), u.db)
	if err != nil {
		t.Fatalf("kill %d: %v", round, err)
	}
	for _, p := range problems {
		t.Errorf("kill %d at %s: %s", round, at, p)
	}
	return len(problems) == 0
}

// eventHoles lists the state changes of every upgrade that do not start where the previous one
// ended: an event lost, or a state written without its event.
func eventHoles(t *testing.T, db *sql.DB) []string {
	t.Helper()
	holes, err := killcheck.EventHoles(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	return holes
}

// A renewal that hangs: the first runner's connections to the database are black-holed (what it
// sends is never delivered, nothing comes back) while its kubeadm runs, longer than the lease's
// TTL; everyone else still reaches the database. The watcher judges the lease expired and fails
// the operation, and the retry starts at once, while the first kubeadm still runs: the host's
// fence makes the retry's kubeadm wait for the first one, so the node never runs two.
func TestFaultHangingRenewal(t *testing.T) {
	t.Parallel()
	u, m, c := startSimMySQL(t)
	u.k.env = append(u.k.env, "KUPGRADE_LEASE_TTL=5s")
	u.begin(t, "v1.30.1", "upgraded-first-master")
	c1 := simHost(t, c, "controller-1")
	simFault(t, c1, sim.Fault{Phase: "control-plane", Action: sim.Delay, Seconds: 25, Once: true})
	hole := startBlackHole(t, "127.0.0.1:"+strconv.Itoa(m.Port))
	runner := &kupgrade{bin: u.k.bin, env: append(append([]string{}, u.k.env...),
		"KUPGRADE_DB=mysql://"+m.User+":"+m.Password+"@"+hole.addr+"/kupgrade")}
	_, first := runner.start(t, "host", "upgrade", "controller-1", "control-plane")
	waitForSimKubeadm(t, c1, true)
	hole.close()
	time.Sleep(7 * time.Second) // past the TTL: the lease expired on the database's clock
	u.k.wantExit(t, 0, "watch", "--once")
	if n := countRows(t, u.db, "SELECT COUNT(*) FROM kube_upgrade_event WHERE actor = 'watch'"); n != 1 {
		t.Fatalf("the watcher failed %d operations, want the one whose lease expired", n)
	}
	retry := &kupgrade{bin: u.k.bin, env: append(append([]string{}, u.k.env...), "KUPGRADE_FENCE_WAIT=60s")}
	code, out := retry.exit(t, "host", "upgrade", "controller-1", "control-plane")
	hole.open()
	firstCode, firstOut := first()
	if max := c1.MaxConcurrentKubeadm(); max != 1 {
		t.Errorf("at most %d kubeadm runs at once on controller-1, want 1", max)
	}
	if code != 0 {
		t.Errorf("the retry exited %d, want 0 (it waits on the fence, then runs):\n%s", code, out)
	}
	if firstCode != 6 {
		t.Errorf("the first runner, whose operation the watcher failed, exited %d, want 6 (its outcome not recorded over the retry's):\n%s", firstCode, firstOut)
	}
	if got := u.k.show(t).State; got != "upgraded-second-master" {
		t.Errorf("state %s, want upgraded-second-master", got)
	}
	waitForSimKubeadm(t, c1, false)
}

// blackHole is a TCP relay to a server that can be told to swallow everything: while closed,
// what either side sends is dropped, as on a black-holed network path.
type blackHole struct {
	addr   string
	closed atomic.Bool
}

func startBlackHole(t *testing.T, upstream string) *blackHole {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	h := &blackHole{addr: l.Addr().String()}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			go h.relay(c, up)
			go h.relay(up, c)
		}
	}()
	return h
}

func (h *blackHole) close() { h.closed.Store(true) }
func (h *blackHole) open()  { h.closed.Store(false) }

// relay copies from src to dst, dropping what comes while the hole is closed.
func (h *blackHole) relay(src, dst net.Conn) {
	defer src.Close()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !h.closed.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// dumpForDiagnosis logs what a failed campaign needs to be understood: the newest events, the
// cluster version kubeadm records, and each node's log of what its kubeadm did.
func (u *labUnderTest) dumpForDiagnosis(t *testing.T) {
	rows, err := u.db.QueryContext(context.Background(), `SELECT id, actor, COALESCE(hostname, ''), COALESCE(from_state, ''),
		COALESCE(to_state, ''), reason, created_at FROM kube_upgrade_event ORDER BY id DESC LIMIT 40`)
	if err == nil {
		defer rows.Close()
		for rows.Next() {
			var id int64
			var actor, host, from, to, reason, at string
			if rows.Scan(&id, &actor, &host, &from, &to, &reason, &at) == nil {
				t.Logf("event %d %s %s %s: %s -> %s: %s", id, at, actor, host, from, to, reason)
			}
		}
	}
	for _, n := range u.lab.Nodes() {
		out, _ := n.Exec(context.Background(), "sh", "-c", "cat /var/lib/kupgrade-lab/shared/cluster-version; cat /var/lib/kupgrade/fence; ps -eo pid,ppid,etime,args; tail -n 60 /var/log/kupgrade-lab/events.log")
		t.Logf("%s: cluster version and kubeadm log:\n%s", n.Name, out)
	}
}
