//go:build integration

package integration_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/internal/killcheck"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// binDir holds kupgrade and kupgrade-lab, built at most once per test binary (the build takes
// seconds and every lab test needs it), and removed when the tests end.
var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// headCommit is the checkout's commit, as `make build` stamps it ("none" outside git).
func headCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "none"
	}
	return strings.TrimSpace(string(out))
}

// binaries builds kupgrade (its commit stamped as `make build` does) and kupgrade-lab once and
// returns the folder holding both.
func binaries(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "kupgrade-integration-bin-"); buildErr != nil {
			return
		}
		for name, pkg := range map[string]string{
			"kupgrade":     "github.com/kupgrade/kupgrade/cmd/kupgrade",
			"kupgrade-lab": "github.com/kupgrade/kupgrade/integration/cmd/kupgrade-lab",
		} {
			out, err := exec.Command("go", "build", "-ldflags", "-X main.commit="+headCommit(), "-o", filepath.Join(binDir, name), pkg).CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("build %s: %w\n%s", name, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// exit runs kupgrade and returns its exit status and combined output; only a failure to run it
// at all fails the test.
// A kupgrade that never ends (a kubeadm hang nobody times out) is stopped after commandLimit, so
// that the test fails with its output instead of holding the whole suite.
func (k *kupgrade) exit(t *testing.T, args ...string) (int, string) {
	t.Helper()
	limit := commandLimit
	if k.limit > 0 {
		limit = k.limit
	}
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	c, out := k.cmd(ctx, args...)
	err := c.Run()
	if ctx.Err() != nil {
		t.Fatalf("kupgrade %s still ran after %s:\n%s", strings.Join(args, " "), limit, out)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("kupgrade %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return c.ProcessState.ExitCode(), out.String()
}

// commandLimit is far above a whole upgrade's few tens of seconds: with the Docker tests side by
// side on 2 cores a whole upgrade has taken more than 3 minutes.
const commandLimit = 10 * time.Minute

// wantExit runs kupgrade and fails the test unless it exits with want.
func (k *kupgrade) wantExit(t *testing.T, want int, args ...string) string {
	t.Helper()
	code, out := k.exit(t, args...)
	if code != want {
		t.Fatalf("kupgrade %s exited %d, want %d:\n%s", strings.Join(args, " "), code, want, out)
	}
	return out
}

// upgradeView is `kupgrade upgrade show -o json` (docs/cli.md).
type upgradeView struct {
	State     string   `json:"state"`
	ToVersion string   `json:"to_version"`
	Hops      []string `json:"hops"`
	Hop       int      `json:"hop"` // from 1; 0 for a one-hop upgrade
	UpdatedAt string   `json:"updated_at"`
	Lease     *struct {
		Owner     string    `json:"owner"`
		Operation string    `json:"operation"`
		ExpiresAt time.Time `json:"expires_at"`
	} `json:"lease"`
}

func (k *kupgrade) show(t *testing.T) upgradeView {
	t.Helper()
	c, out := k.cmd(t.Context(), "upgrade", "show", "-o", "json")
	var stdout strings.Builder
	c.Stdout = &stdout
	var v upgradeView
	err := c.Run()
	if c.ProcessState != nil && c.ProcessState.ExitCode() == 3 && strings.HasPrefix(strings.TrimSpace(stdout.String()), "null") {
		return v // no upgrade yet: show exits 3 and prints null (then its error event, -o json's one stream)
	}
	if err != nil {
		t.Fatalf("kupgrade upgrade show: %v\n%s", err, out)
	}
	if err := json.Unmarshal([]byte(stdout.String()), &v); err != nil {
		t.Fatalf("upgrade show -o json: %v\n%s", err, stdout.String())
	}
	return v
}

// hostStatus is kube_host_upgrade.status of a host as `host list -o json` prints it ("" for NULL).
func (k *kupgrade) hostStatus(t *testing.T, name string) string {
	t.Helper()
	c, out := k.cmd(t.Context(), "host", "list", "-o", "json")
	var stdout strings.Builder
	c.Stdout = &stdout
	if err := c.Run(); err != nil {
		t.Fatalf("kupgrade host list: %v\n%s", err, out)
	}
	var hosts []struct {
		Hostname string  `json:"hostname"`
		Status   *string `json:"status"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &hosts); err != nil {
		t.Fatalf("host list -o json: %v\n%s", err, stdout.String())
	}
	for _, h := range hosts {
		if h.Hostname == name {
			if h.Status == nil {
				return ""
			}
			return *h.Status
		}
	}
	t.Fatalf("host list has no %s:\n%s", name, stdout.String())
	return ""
}

// openDB opens kupgrade's SQLite database read-only, as an operator's sqlite3 would.
// createDB creates kupgrade's SQLite database at dbPath, as `upgrade start` would: only the
// commands that start an upgrade create one, and the tests read it from their start.
func createDB(t *testing.T, dbPath string) {
	t.Helper()
	st, err := sqlite.Open(t.Context(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

func openDB(t *testing.T, dbPath string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dbPath+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// lastEvent is the newest state change of kube_upgrade_event (killcheck.NewestFailure).
type lastEvent killcheck.Failure

func newestFailure(t *testing.T, db *sql.DB) lastEvent {
	t.Helper()
	f, err := killcheck.NewestFailure(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	return lastEvent(f)
}

func countRows(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

var imageTag = regexp.MustCompile(`image:\s*\S+/(kube-[a-z-]+):(\S+)`)

// requireVersions checks on the nodes themselves (not in kupgrade's database) that every
// controller's control-plane manifests carry version and every node's kubelet reports it.
func requireVersions(t *testing.T, l *lab.Lab, version string) {
	t.Helper()
	for _, n := range l.Nodes() {
		if n.Role == "controller" {
			out, err := n.Exec(t.Context(), "sh", "-c", "cat /etc/kubernetes/manifests/kube-*.yaml")
			if err != nil {
				t.Fatalf("read manifests on %s: %v", n.Name, err)
			}
			tags := imageTag.FindAllStringSubmatch(out, -1)
			if len(tags) != 3 {
				t.Errorf("%s: %d control-plane images in its manifests, want 3:\n%s", n.Name, len(tags), out)
			}
			for _, m := range tags {
				if m[2] != version {
					t.Errorf("%s: %s manifest at %s, want %s", n.Name, m[1], m[2], version)
				}
			}
		}
		out, err := n.Exec(t.Context(), "kubelet", "--version")
		if err != nil {
			t.Fatalf("kubelet --version on %s: %v", n.Name, err)
		}
		if got := strings.TrimSpace(out); got != "Kubernetes "+version {
			t.Errorf("%s: kubelet --version says %q, want Kubernetes %s", n.Name, got, version)
		}
	}
}

// requireNoKubeadm fails unless no kubeadm upgrade runs on n. A killed session's kubeadm may take
// a moment to notice, so it is given a few seconds to go.
func requireNoKubeadm(t *testing.T, n *lab.Node) {
	t.Helper()
	requireNoProcess(t, n, "kubeadm upgrade")
}

// requireNoProcess fails unless, within a few seconds, no process on n has pattern in its
// command line (pgrep -f).
func requireNoProcess(t *testing.T, n *lab.Node, pattern string) {
	t.Helper()
	var out string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var ok bool
		if out, ok = pgrep(t, n, pattern); !ok {
			return
		}
	}
	t.Errorf("%q still runs on %s:\n%s", pattern, n.Name, out)
}

// pgrep lists the processes on n with pattern in their command line; ok says there are some.
func pgrep(t *testing.T, n *lab.Node, pattern string) (out string, ok bool) {
	t.Helper()
	out, err := n.Exec(t.Context(), "pgrep", "-af", pattern)
	var ee *lab.ExitError
	if errors.As(err, &ee) && ee.Status == 1 {
		return "", false // nothing matches
	}
	if err != nil {
		t.Fatalf("pgrep on %s: %v", n.Name, err)
	}
	return out, true
}

func injectFault(t *testing.T, n *lab.Node, f lab.Fault) {
	t.Helper()
	if err := n.InjectFault(t.Context(), f); err != nil {
		t.Fatalf("inject fault on %s: %v", n.Name, err)
	}
}
