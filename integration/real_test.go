//go:build integration

package integration_test

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// Tests against a real Kubernetes: kubeadm, kubelet and the control plane built from source
// (lab.UpReal). They run when the real lab is built or KUPGRADE_FULL=1, and skip saying so
// otherwise (lab.RequireReal).

// realCommandLimit bounds one kupgrade command on a real lab: a whole `upgrade run` takes
// minutes (kubeadm upgrade apply alone waits for three static pods to restart).
const realCommandLimit = 20 * time.Minute

func startRealLab(t *testing.T) *labUnderTest {
	t.Helper()
	return kupgradeOnRealLab(t, lab.StartReal(t, lab.RealOptions{Controllers: 2, Workers: 1}))
}

// kupgradeOnRealLab builds kupgrade for the real lab l with a fresh database.
func kupgradeOnRealLab(t *testing.T, l *lab.Lab) *labUnderTest {
	t.Helper()
	dbPath := filepath.Join(t.TempDir(), "kupgrade.db")
	k := buildKupgrade(t, l, dbPath)
	k.limit = realCommandLimit
	createDB(t, dbPath)
	k.wantExit(t, 0, "recover")
	return &labUnderTest{lab: l, k: k, db: openDB(t, dbPath)}
}

// TestRealUpgrade: kupgrade upgrades a real 2+1 kubeadm cluster with external etcd from
// RealFromVersion to RealToVersion with `upgrade start` and `upgrade run`, and kubectl from this
// machine sees every node and control-plane pod at the new version and a healthy API. It logs
// the figures of docs/labs.md "A real Kubernetes".
func TestRealUpgrade(t *testing.T) {
	u := startRealLab(t)
	to := lab.RealToVersion
	u.k.wantExit(t, 0, "upgrade", "start", to)
	start := time.Now()
	out := u.k.wantExit(t, 0, "-o", "json", "upgrade", "run")
	wall := time.Since(start)
	if got := u.k.show(t).State; got != "upgrade-complete" {
		t.Fatalf("after upgrade run the state is %s, want upgrade-complete", got)
	}
	requireVersions(t, u.lab, to)
	requireRealCluster(t, u.lab, to)
	logShares(t, lab.RealFromVersion+" -> "+lab.RealToVersion, wall, out)
}

// requireRealCluster checks the cluster from outside with kubectl: every node's kubelet and
// every control-plane pod's image at version, all pods Running, and /readyz ok.
func requireRealCluster(t *testing.T, l *lab.Lab, version string) {
	t.Helper()
	ctx := t.Context()
	// A restarted kubelet reports its new version in the node's status at its next sync, not at once.
	var kubelets string
	var err error
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(2 * time.Second) {
		kubelets, err = l.KubectlRun(ctx, "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name} {.status.nodeInfo.kubeletVersion}{"\n"}{end}`)
		if err == nil && nodesAt(kubelets, version) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl: nodes not all at kubelet %s after 2 minutes (%v):\n%s", version, err, kubelets)
		}
	}
	if n := len(strings.Split(strings.TrimSpace(kubelets), "\n")); n != len(l.Nodes()) {
		t.Errorf("kubectl lists %d nodes, want %d:\n%s", n, len(l.Nodes()), kubelets)
	}
	// Static pods are mirrored into the API a moment after the kubelet restarts them.
	var pods string
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(2 * time.Second) {
		pods, err = l.KubectlRun(ctx, "get", "pods", "-n", "kube-system", "-l", "tier=control-plane", "-o",
			`jsonpath={range .items[*]}{.metadata.name} {.status.phase} {.spec.containers[0].image}{"\n"}{end}`)
		if err == nil && controlPlaneAt(pods, version, 3*countControllers(l)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("control-plane pods not all Running at %s after 3 minutes (%v):\n%s", version, err, pods)
		}
	}
	if ready, err := l.KubectlRun(ctx, "get", "--raw", "/readyz"); err != nil || strings.TrimSpace(ready) != "ok" {
		t.Errorf("API /readyz: %q, %v", ready, err)
	}
}

func nodesAt(kubelets, version string) bool {
	for _, line := range strings.Split(strings.TrimSpace(kubelets), "\n") {
		if f := strings.Fields(line); len(f) != 2 || f[1] != version {
			return false
		}
	}
	return true
}

func controlPlaneAt(pods, version string, want int) bool {
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(pods), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "Running" || !strings.HasSuffix(f[2], ":"+version) {
			return false
		}
		n++
	}
	return n == want
}

func countControllers(l *lab.Lab) int {
	n := 0
	for _, node := range l.Nodes() {
		if node.Role == "controller" {
			n++
		}
	}
	return n
}

// taskSpan is one task result of `kupgrade -o json`: when it ran on which host.
type taskSpan struct {
	task       string
	start, end time.Time
}

// logShares logs where the wall time of a run went: inside kubeadm, in kubelet restarts, in
// every task on the hosts (intervals merged, as tasks on several hosts overlap), and the rest,
// kupgrade's own share.
func logShares(t *testing.T, label string, wall time.Duration, jsonLines string) {
	t.Helper()
	var spans []taskSpan
	sc := bufio.NewScanner(strings.NewReader(jsonLines))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Time     time.Time `json:"time"`
			Task     string    `json:"task"`
			Duration *float64  `json:"duration"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Duration == nil {
			continue
		}
		d := time.Duration(*ev.Duration * float64(time.Second))
		spans = append(spans, taskSpan{ev.Task, ev.Time.Add(-d), ev.Time})
	}
	var kubeadm, restart time.Duration
	for _, s := range spans {
		switch {
		case strings.HasPrefix(s.task, "kubeadm upgrade"):
			kubeadm += s.end.Sub(s.start)
		case strings.HasPrefix(s.task, "Restart the kubelet"):
			restart += s.end.Sub(s.start)
		}
	}
	onHosts := merged(spans)
	own := wall - onHosts
	t.Logf("real upgrade %s: wall %s; kubeadm %s; kubelet restarts %s; all tasks on hosts %s; kupgrade's own %s (%.2f %% of the wall)",
		label, wall.Round(100*time.Millisecond), kubeadm.Round(100*time.Millisecond),
		restart.Round(10*time.Millisecond), onHosts.Round(100*time.Millisecond), own.Round(10*time.Millisecond),
		100*own.Seconds()/wall.Seconds())
	if len(spans) == 0 {
		t.Errorf("kupgrade -o json upgrade run reported no task with a duration:\n%s", jsonLines)
	}
	for _, g := range widestGaps(spans, 3) {
		t.Logf("  kupgrade alone for %s: after %q, before %q", g.end.Sub(g.start).Round(10*time.Millisecond), g.after, g.before)
	}
}

// gap is a stretch of a run with no task on any host.
type gap struct {
	start, end    time.Time
	after, before string
}

// widestGaps are the n longest stretches between the spans (sorted by start, as merged leaves
// them) where no task ran: where kupgrade's own time goes.
func widestGaps(spans []taskSpan, n int) []gap {
	var gaps []gap
	var end time.Time
	var last string
	for i, s := range spans {
		if i > 0 && s.start.After(end) {
			gaps = append(gaps, gap{end, s.start, last, s.task})
		}
		if s.end.After(end) {
			end, last = s.end, s.task
		}
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i].end.Sub(gaps[i].start) > gaps[j].end.Sub(gaps[j].start) })
	return gaps[:min(n, len(gaps))]
}

// merged is the length of the union of the spans' intervals.
func merged(spans []taskSpan) time.Duration {
	sort.Slice(spans, func(i, j int) bool { return spans[i].start.Before(spans[j].start) })
	var total time.Duration
	var cur taskSpan
	for i, s := range spans {
		switch {
		case i == 0:
			cur = s
		case s.start.After(cur.end):
			total += cur.end.Sub(cur.start)
			cur = s
		case s.end.After(cur.end):
			cur.end = s.end
		}
	}
	if len(spans) > 0 {
		total += cur.end.Sub(cur.start)
	}
	return total
}
