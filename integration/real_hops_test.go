//go:build integration

package integration_test

import (
	"bufio"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// startPristineRealLab is startRealLab on a lab as kubeadm's install guide leaves it: every
// package at the first version and held, the apt source naming its minor, no next kubeadm
// installed; kupgrade installs every package itself, the default way (the inventory names no
// install command), and the inventory offers every version of the lab (kupgrade_versions).
func startPristineRealLab(t *testing.T, ifBuilt bool) *labUnderTest {
	t.Helper()
	l := lab.StartReal(t, lab.RealOptions{Controllers: 2, Workers: 1, Pristine: true, IfBuilt: ifBuilt})
	offerVersions(t, l, lab.RealVersions...)
	return kupgradeOnRealLab(t, l)
}

// startHopsWithWorkload starts a pristine real lab, deploys the protected workload on all nodes
// but one and starts the upgrade to the lab's last version; n is the number of nodes.
func startHopsWithWorkload(t *testing.T, ifBuilt bool) (u *labUnderTest, n int) {
	t.Helper()
	u = startPristineRealLab(t, ifBuilt)
	n = len(u.lab.Nodes())
	if err := u.lab.DeployProtected(t.Context(), "protected", n-1); err != nil {
		t.Fatal(err)
	}
	u.k.wantExit(t, 0, "upgrade", "start", lab.RealLastVersion)
	return u, n
}

// TestRealHops: one `upgrade run` takes a real 2+1 cluster from the first to the last version
// of the lab through the minor in between, installing kubeadm, kubelet and kubectl from the
// lab's per-minor repositories; every node and control-plane pod ends at the last version, the
// packages are installed and held there, each kubelet was restarted once, and the protected
// Deployment never went below its budget while nodes were drained. It logs the wall time of
// each hop and kupgrade's own share. make test runs it where the real lab is built (and builds
// nothing), alone before the Docker tests that run side by side.
func TestRealHops(t *testing.T) {
	u, n := startHopsWithWorkload(t, true)
	last := lab.RealLastVersion
	if v := u.k.show(t); strings.Join(v.Hops, " ") != strings.Join(lab.RealVersions[1:], " ") {
		t.Fatalf("hops %v, want %v", v.Hops, lab.RealVersions[1:])
	}
	stop := sampleAvailable(t, u.lab, "protected")
	start := time.Now()
	out := u.k.wantExit(t, 0, "-o", "json", "upgrade", "run")
	wall := time.Since(start)
	if low := stop(); low < n-1 {
		t.Errorf("the protected Deployment fell to %d available pods during the run, below its budget of %d", low, n-1)
	}
	if got := u.k.show(t).State; got != "upgrade-complete" {
		t.Fatalf("after upgrade run the state is %s, want upgrade-complete", got)
	}
	requireVersions(t, u.lab, last)
	requireRealCluster(t, u.lab, last)
	for _, node := range u.lab.Nodes() {
		requireRealPackages(t, node, last, "kubeadm", "kubelet", "kubectl")
	}
	requireOneRestartEach(t, u.lab, out)
	logHops(t, start, wall, out)
}

// sampleAvailable counts the available pods of the Deployment name every second until the
// returned function is called, which returns the lowest count seen.
func sampleAvailable(t *testing.T, l *lab.Lab, name string) func() int {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	low := len(l.Nodes())
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if got, err := l.Available(t.Context(), name); err == nil && got < low {
				low = got
			}
			select {
			case <-done:
				return
			case <-time.After(time.Second):
			}
		}
	}()
	return func() int { close(done); wg.Wait(); return low }
}

// runEvent is one line of `kupgrade -o json upgrade run`.
type runEvent struct {
	Time     time.Time `json:"time"`
	Host     string    `json:"host"`
	Task     string    `json:"task"`
	ToState  string    `json:"to_state"`
	Duration *float64  `json:"duration"`
}

func runEvents(t *testing.T, jsonLines string) []runEvent {
	t.Helper()
	var evs []runEvent
	sc := bufio.NewScanner(strings.NewReader(jsonLines))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev runEvent
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			evs = append(evs, ev)
		}
	}
	return evs
}

// requireOneRestartEach: every node's kubelet was restarted by exactly one task of the run
// (the kubelets move once, at the end, when the skew allows it).
func requireOneRestartEach(t *testing.T, l *lab.Lab, jsonLines string) {
	t.Helper()
	restarts := map[string]int{}
	for _, ev := range runEvents(t, jsonLines) {
		if ev.Duration != nil && strings.HasPrefix(ev.Task, "Restart the kubelet") {
			restarts[ev.Host]++
		}
	}
	for _, n := range l.Nodes() {
		if restarts[n.Name] != 1 {
			t.Errorf("the kubelet of %s was restarted %d times in the run, want once (all: %v)", n.Name, restarts[n.Name], restarts)
		}
	}
}

// logHops logs the wall time of each hop (a hop ends where the run goes back to upgrade-started
// for the next one) and kupgrade's own share of the whole run, as logShares computes it.
func logHops(t *testing.T, start time.Time, wall time.Duration, jsonLines string) {
	t.Helper()
	from := start
	hop := 1
	for _, ev := range runEvents(t, jsonLines) {
		if ev.ToState == "upgrade-started" && ev.Time.After(from) {
			t.Logf("real hop %d: %s", hop, ev.Time.Sub(from).Round(100*time.Millisecond))
			from, hop = ev.Time, hop+1
		}
	}
	t.Logf("real hop %d: %s", hop, start.Add(wall).Sub(from).Round(100*time.Millisecond))
	logShares(t, strings.Join(lab.RealVersions, " -> "), wall, jsonLines)
}

// TestRealHopsRetries: the two failures an operator meets on the way through several minors, on
// one real 2+1 cluster going from the first to the last version of the lab. The seed's late
// `kubeadm upgrade node` failure at the middle hop (after its real kubelet-config phase) ends the
// run in that hop's failed twin with the kubelet-config finding; the retry resumes that hop.
// Then a budget no eviction can meet stops the first drain: the run ends in a failure naming
// the budget once --drain-timeout passes, the node stays cordoned with its old kubelet; with the
// budget fixed the same command completes, every node at the last version and schedulable.
// (The budget is first seen by the health checks before hop 2, which refuse the hop; the test
// then overrides that check, as an operator who means to wait for the budget would.)
func TestRealHopsRetries(t *testing.T) {
	u, n := startHopsWithWorkload(t, false)
	ctx := t.Context()
	last := lab.RealLastVersion
	injectFault(t, u.lab.Node("controller-1"), lab.Fault{Phase: "kubelet-config", Action: lab.Exit, Status: 1, Once: true})
	out := u.k.wantExit(t, 1, "upgrade", "run")
	if v := u.k.show(t); v.State != "upgrading-second-master-failed" || v.Hop != 1 {
		t.Fatalf("state %s at hop %d, want upgrading-second-master-failed at hop 1 (%s):\n%s", v.State, v.Hop, lab.RealToVersion, out)
	}
	if ev := newestFailure(t, u.db); ev.Class != "kubelet-config-rewritten" {
		t.Errorf("finding class %q, want kubelet-config-rewritten:\n%s", ev.Class, out)
	}
	if err := u.lab.SetRealBudget(ctx, "protected", n); err != nil {
		t.Fatal(err)
	}
	// The run resumes hop 1; the health checks before hop 2 see the budget and refuse the hop.
	out = u.k.wantExit(t, 3, "--drain-timeout", "45s", "upgrade", "run")
	if v := u.k.show(t); v.State != "upgraded-second-master" || v.Hop != 1 || !strings.Contains(out, "default/protected") {
		t.Fatalf("state %s at hop %d after the retry, want upgraded-second-master at hop 1 refused by the drain check naming default/protected:\n%s", v.State, v.Hop, out)
	}
	// Overridden, the hop runs and the drain itself meets the budget.
	start := time.Now()
	out = u.k.wantExit(t, 1, "--drain-timeout", "45s", "upgrade", "run", "--skip-check", "drain")
	t.Logf("the run went through hop 2's control plane and stopped at a blocked drain after %s", time.Since(start).Round(time.Second))
	if v := u.k.show(t); v.State != "upgrading-kubelets" || v.Hop != 2 {
		t.Fatalf("state %s at hop %d after the blocked drain, want upgrading-kubelets at hop 2:\n%s", v.State, v.Hop, out)
	}
	if !strings.Contains(out, "default/protected") {
		t.Errorf("the blocked drain's failure does not name the budget default/protected:\n%s", out)
	}
	if err := u.lab.SetRealBudget(ctx, "protected", n-1); err != nil {
		t.Fatal(err)
	}
	u.k.wantExit(t, 0, "--drain-timeout", "45s", "upgrade", "run")
	if got := u.k.show(t).State; got != "upgrade-complete" {
		t.Fatalf("after the retry the state is %s, want upgrade-complete", got)
	}
	requireVersions(t, u.lab, last)
	requireRealCluster(t, u.lab, last)
	if out, err := u.lab.KubectlRun(ctx, "get", "nodes", "-o", "jsonpath={.items[*].spec.unschedulable}"); err != nil || strings.Contains(out, "true") {
		t.Errorf("a node is still cordoned after the upgrade: %q (%v)", out, err)
	}
}
