//go:build integration

package integration_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/kupgrade/kupgrade/integration/lab"
)

const target = "v1.30.2"

// kupgrade is the binary under test (built once per test binary, see binaries) pointed at one
// lab and one database.
type kupgrade struct {
	bin   string
	env   []string
	limit time.Duration // how long one command may run; commandLimit when 0
}

func buildKupgrade(t testing.TB, l *lab.Lab, dbPath string) *kupgrade {
	t.Helper()
	bin := filepath.Join(binaries(t), "kupgrade")
	return &kupgrade{bin: bin, env: append(os.Environ(), "KUPGRADE_DB=sqlite:"+dbPath, "KUPGRADE_INVENTORY="+l.Inventory(), "HOME="+t.TempDir(), "KUPGRADE_LOG_DIR="+t.TempDir())}
}

func (k *kupgrade) cmd(ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer) {
	c := exec.CommandContext(ctx, k.bin, args...)
	var out bytes.Buffer
	c.Env, c.Stdout, c.Stderr = k.env, &out, &out
	return c, &out
}

func (k *kupgrade) must(t *testing.T, args ...string) string {
	t.Helper()
	c, out := k.cmd(t.Context(), args...)
	if err := c.Run(); err != nil {
		t.Fatalf("kupgrade %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out.String()
}

// newestEvent reads the kube_upgrade state and the newest event, as an operator would.
func newestEvent(t *testing.T, db *sql.DB) (st, actor, fromHost, evidence string) {
	t.Helper()
	err := db.QueryRowContext(t.Context(), `SELECT u.state, e.actor, COALESCE(e.from_host_status, ''), COALESCE(e.evidence, '')
		FROM kube_upgrade u JOIN kube_upgrade_event e ON e.cluster = u.cluster ORDER BY e.id DESC LIMIT 1`).Scan(&st, &actor, &fromHost, &evidence)
	if err != nil {
		t.Fatalf("read state: %v", err)
	}
	return st, actor, fromHost, evidence
}

// envOr lets the figure for the closing note be measured with other settings, e.g.
// KUPGRADE_TEST_LEASE_TTL=30s KUPGRADE_TEST_WATCH_INTERVAL=5s (the defaults and the interval).
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// kupgrade is SIGKILLed while kubeadm upgrade node hangs on controller-1, a watcher is running:
// the state becomes upgrading-second-master-failed with the probe's evidence, the host status is
// cleared, and the retry succeeds.
func TestWatchFailsKilledUpgradeAndRetrySucceeds(t *testing.T) {
	t.Parallel()
	l := lab.Start(t, lab.Options{Controllers: 2})
	dbPath := filepath.Join(t.TempDir(), "kupgrade.db")
	k := buildKupgrade(t, l, dbPath)
	k.must(t, "upgrade", "start", target)
	k.must(t, "upgrade", "run", "--until", "upgraded-first-master")

	c1 := l.Node("controller-1")
	if err := c1.InjectFault(t.Context(), lab.Fault{Phase: "control-plane", Action: lab.Hang, Once: true}); err != nil {
		t.Fatalf("inject fault: %v", err)
	}
	ttl, interval := envOr("KUPGRADE_TEST_LEASE_TTL", "5s"), envOr("KUPGRADE_TEST_WATCH_INTERVAL", "1s")
	up, upOut := k.cmd(t.Context(), "--lease-ttl", ttl, "host", "upgrade", "controller-1", "control-plane")
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the one-shot hang has fired: kubeadm removed the fault and hangs right after the
	// control-plane phase. Seeing the new manifests is not enough: a kill between the last one
	// and the fault would leave the fault armed for the retry's kubeadm.
	waitForHang(t, c1, upOut)
	if out, _ := c1.Exec(t.Context(), "sh", "-c", "grep -h 'image:' /etc/kubernetes/manifests/kube-*.yaml"); strings.Count(out, ":"+target+"\n") != 3 {
		t.Fatalf("kubeadm hangs after its control-plane phase with manifests at:\n%s\nkupgrade:\n%s", out, upOut)
	}
	if err := up.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	up.Wait()

	// Not tied to the test's context: exec would report the SIGTERM it sends as an error even
	// when watch exits 0, and a clean exit on SIGTERM is part of what is checked.
	watch, watchOut := k.cmd(context.Background(), "watch", "--interval", interval, "-o", "json")
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer watch.Process.Kill()
	db, err := sql.Open("sqlite", dbPath+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var st, actor, fromHost, evidence string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if st, actor, fromHost, evidence = newestEvent(t, db); st == "upgrading-second-master-failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("state still %s two minutes after SIGKILL; watch said:\n%s", st, watchOut)
		}
	}
	t.Logf("SIGKILL to upgrading-second-master-failed: %s (lease TTL %s, interval %s)", time.Since(killed).Round(10*time.Millisecond), ttl, interval)
	watch.Process.Signal(syscall.SIGTERM)
	if err := watch.Wait(); err != nil {
		t.Errorf("watch after SIGTERM: %v, want exit 0\n%s", err, watchOut)
	}

	if actor != "watch" || fromHost != "upgrading-control-plane" {
		t.Errorf("failure event by %s clearing %q, want watch clearing upgrading-control-plane", actor, fromHost)
	}
	var ev struct {
		DetectedBy string `json:"detected_by"`
		Finding    *struct {
			Class   string `json:"class"`
			Summary string `json:"summary"`
		} `json:"finding"`
		ProbeError string `json:"probe_error"`
	}
	if err := json.Unmarshal([]byte(evidence), &ev); err != nil {
		t.Fatalf("evidence %s: %v", evidence, err)
	}
	if ev.DetectedBy != "lease-expired" || ev.Finding == nil || !strings.Contains(ev.Finding.Summary, "/var/lib/kubelet/config.yaml") {
		t.Errorf("evidence %s: want lease-expired with the probe's finding about config.yaml", evidence)
	}
	if !strings.Contains(watchOut.String(), `"event":"audit"`) {
		t.Errorf("watch printed no audit event:\n%s", watchOut)
	}

	// Bounded, so a kubeadm that hangs again fails here in minutes, not at the 15-minute default.
	k.must(t, "--kubeadm-timeout", "2m", "host", "upgrade", "controller-1", "control-plane")
	if st, _, _, _ := newestEvent(t, db); st != "upgraded-second-master" {
		t.Errorf("after the retry the state is %s, want upgraded-second-master", st)
	}
}
