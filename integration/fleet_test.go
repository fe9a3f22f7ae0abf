//go:build integration

package integration_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/internal/sim"
	"github.com/kupgrade/kupgrade/state"
)

// fleetRunner is one `kupgrade fleet run` process of a test.
type fleetRunner struct {
	cmd *exec.Cmd
	out bytes.Buffer
}

func startFleetRunner(t *testing.T, env []string, args ...string) *fleetRunner {
	t.Helper()
	r := &fleetRunner{cmd: exec.Command(filepath.Join(binaries(t), "kupgrade"), args...)}
	r.cmd.Env, r.cmd.Stdout, r.cmd.Stderr = env, &r.out, &r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.cmd.Process.Kill() //nolint:errcheck // most have ended
		r.cmd.Wait()         //nolint:errcheck // most have ended
		if t.Failed() {
			t.Logf("kupgrade %s:\n%s", strings.Join(args, " "), r.out.String())
		}
	})
	return r
}

// owner is the prefix of this runner's claims and leases: host:pid:.
func (r *fleetRunner) owner() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("%s:%d:", h, r.cmd.Process.Pid)
}

// Three fleet runs share one MariaDB; one is SIGKILLed half-way. Every cluster ends
// upgrade-complete, no cluster ever had two operations at once (the events say so), no host two
// kubeadm at once, and the killed runner's clusters are taken over within about one lease TTL.
// A few clusters fail late once and are completed by --retries. KUPGRADE_FULL=1: 1,000 clusters.
func TestFleetThreeRunnersOneKilled(t *testing.T) {
	t.Parallel()
	n := 90
	if os.Getenv("KUPGRADE_FULL") == "1" {
		n = 1000
	}
	m := lab.StartMariaDB(t)
	f, err := sim.Start(sim.Options{Clusters: n, Controllers: 2, Workers: 1, From: "v1.29.4", To: "v1.30.1",
		Dir: t.TempDir(), LateFailure: func(i int) bool { return i%30 == 7 }, KubeadmDelay: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	const ttl = 3 * time.Second
	env := append(os.Environ(), "KUPGRADE_DB="+m.DSN(), "HOME="+t.TempDir())
	args := []string{"--lease-ttl", ttl.String(), "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories, "--max-parallel", "8", "--retries", "1"}
	var rs []*fleetRunner
	for range 3 {
		rs = append(rs, startFleetRunner(t, env, args...))
	}
	db, err := sql.Open("mysql", m.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	waitDone(t, db, n/3)
	killed := rs[1]
	killedAt := time.Now().UTC()
	if err := killed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 2} {
		if err := waitExit(rs[i], 5*time.Minute); err != nil {
			t.Fatalf("runner %d: %v\n%s", i, err, rs[i].out.String())
		}
	}
	checkSharedFleet(t, db, f, n)
	checkTakeover(t, db, killed.owner(), killedAt, ttl)
}

func waitExit(r *fleetRunner, limit time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		return fmt.Errorf("still running after %s", limit)
	}
}

// waitDone waits until at least k clusters of the fleet are done.
func waitDone(t *testing.T, db *sql.DB, k int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		var done int
		err := db.QueryRow("SELECT COUNT(*) FROM fleet_cluster WHERE outcome = 'done'").Scan(&done)
		if err == nil && done >= k {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("fewer than %d clusters done after 2 minutes", k)
}

func checkSharedFleet(t *testing.T, db *sql.DB, f *sim.Fleet, n int) {
	t.Helper()
	var complete, done int
	if err := db.QueryRow("SELECT COUNT(*) FROM kube_upgrade WHERE state = 'upgrade-complete'").Scan(&complete); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM fleet_cluster WHERE outcome = 'done'").Scan(&done); err != nil {
		t.Fatal(err)
	}
	if complete != n || done != n {
		t.Errorf("%d clusters upgrade-complete and %d done, want %d", complete, done, n)
	}
	if err := sim.CheckOneOperation(readEvents(t, db)); err != nil {
		t.Errorf("the event log shows two operations at once: %v", err)
	}
	if k := f.MaxConcurrentKubeadm(); k > 1 {
		t.Errorf("a host ran %d kubeadm at once", k)
	}
	var late int
	if err := db.QueryRow("SELECT COUNT(DISTINCT cluster) FROM kube_upgrade_event WHERE to_state = 'upgrading-second-master-failed'").Scan(&late); err != nil || late == 0 {
		t.Errorf("no late failure was recorded (%v): the test did not test --retries", err)
	}
}

func readEvents(t *testing.T, db *sql.DB) []state.Event {
	t.Helper()
	rows, err := db.Query(`SELECT id, cluster, COALESCE(from_state, ''), COALESCE(to_state, ''), COALESCE(from_host_status, ''),
		COALESCE(to_host_status, ''), reason FROM kube_upgrade_event`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var evs []state.Event
	for rows.Next() {
		var e state.Event
		if err := rows.Scan(&e.ID, &e.Cluster, &e.FromState, &e.ToState, &e.FromHostStatus, &e.ToHostStatus, &e.Reason); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
	}
	return evs
}

// checkTakeover checks that the killed runner's clusters were taken over, and logs how soon (a
// claim expires at most one TTL after the kill, and the others look every tenth of a TTL; on a
// loaded machine the others take longer to look, so the delay is a figure, not an assertion).
func checkTakeover(t *testing.T, db *sql.DB, owner string, killedAt time.Time, ttl time.Duration) {
	t.Helper()
	rows, err := db.Query("SELECT cluster, claimed_at FROM fleet_cluster WHERE taken_from LIKE ?", owner+"%")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var worst time.Duration
	var taken []string
	for rows.Next() {
		var c, at string
		if err := rows.Scan(&c, &at); err != nil {
			t.Fatal(err)
		}
		ts, err := time.Parse("2006-01-02 15:04:05.999999", at)
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, c)
		worst = max(worst, ts.Sub(killedAt))
	}
	if len(taken) == 0 {
		t.Fatal("no cluster of the killed runner was taken over")
	}
	t.Logf("the killed runner's %d cluster(s) (%s) were taken over at most %s after the SIGKILL (lease TTL %s)",
		len(taken), strings.Join(taken, ", "), worst.Round(10*time.Millisecond), ttl)
}

// The fleet on the status page, in headless Chromium: its counts and the cluster that failed,
// with why.
func TestFleetStatusPageInBrowser(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	f, err := sim.Start(sim.Options{Clusters: 4, Controllers: 2, Workers: 1, From: "v1.29.4", To: "v1.30.1",
		Dir: t.TempDir(), LateFailure: func(i int) bool { return i == 2 }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	dbPath := filepath.Join(t.TempDir(), "kupgrade.db")
	k := &kupgrade{bin: filepath.Join(binaries(t), "kupgrade"), env: append(os.Environ(), "KUPGRADE_DB=sqlite:"+dbPath, "HOME="+t.TempDir())}
	if code, out := k.exit(t, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories); code != 1 {
		t.Fatalf("fleet run with one late failure: exit %d, want 1\n%s", code, out)
	}
	addr := startWatch(t, k)
	ctx := browserContext(t, browser)
	row := `tr[data-fleet="default"]`
	if err := chromedp.Do(ctx, chromedp.Navigate("http://"+addr+"/"), chromedp.WaitVisible(row)); err != nil {
		t.Fatalf("open the status page: %v", err)
	}
	screenshot(t, ctx, artifacts(t), "status-fleet.png")
	if got := strings.Fields(text(t, ctx, row)); len(got) < 7 || got[1] != "4" || got[2] != "3" || got[3] != "1" || got[6] != "75%" {
		t.Errorf("the fleet row reads %q, want 4 clusters, 3 done, 1 failed, 75%%", got)
	}
	got := text(t, ctx, `#fleet-attention tr[data-cluster="c0002"]`)
	for _, want := range []string{"upgrading-second-master-failed", "failed in the fleet run", "kubelet-config"} {
		if !strings.Contains(got, want) {
			t.Errorf("the failed cluster's row lacks %q:\n%s", want, got)
		}
	}
	timelinesOfTheFleet(t, ctx)
}

// timelinesOfTheFleet checks the timelines the runs' own events draw: the failed cluster's ends
// with its second master's step, red, on a controller; a completed one has every step done and
// one kubelet bar per host.
func timelinesOfTheFleet(t *testing.T, ctx context.Context) {
	t.Helper()
	count := func(sel string) int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+sel+`').length`))
		if err != nil {
			t.Fatalf("count %s: %v", sel, err)
		}
		return n
	}
	failed := `.timeline[data-cluster="c0002"] .tl-row[data-step="upgrading-second-master"][data-outcome="failed"][data-host^="controller"]`
	if count(failed) != 1 || count(`.timeline[data-cluster="c0002"] .tl-row[data-outcome="failed"]`) != 1 {
		t.Errorf("the failed cluster's timeline does not show one failed second-master bar:\n%s", text(t, ctx, `.timeline[data-cluster="c0002"]`))
	}
	done := `.timeline[data-cluster="c0000"]`
	if count(done+` .tl-row[data-outcome="done"][data-step="upgrading-first-master"]`) != 1 ||
		count(done+` .tl-row[data-step="kubelet"][data-outcome="done"]`) != 3 || count(done+` .tl-row:not([data-outcome="done"])`) != 0 {
		t.Errorf("the completed cluster's timeline:\n%s", text(t, ctx, done))
	}
}
