//go:build integration

package integration_test

import (
	"bufio"
	"context"
	"database/sql"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kupgrade/kupgrade/health"
)

// The status page of `kupgrade watch --listen`, in headless Chromium, as an operator watches it:
// after hand edits of the database (no lab), the page shows without a reload the operation in
// flight with nobody's lease, then the failure nobody retried for two hours with the command
// that retries it. A screenshot of each is kept (KUPGRADE_ARTIFACTS, else a temp dir).
func TestStatusPageInBrowser(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "kupgrade.db")
	inv := filepath.Join(dir, "inventory.yml")
	if err := os.WriteFile(inv, []byte(statusInventory), 0o644); err != nil {
		t.Fatal(err)
	}
	k := &kupgrade{bin: filepath.Join(binaries(t), "kupgrade"),
		env: append(os.Environ(), "KUPGRADE_DB=sqlite:"+dbPath, "KUPGRADE_INVENTORY="+inv, "HOME="+t.TempDir())}
	// No host of the inventory answers: its health checks cannot run, and are skipped by name.
	k.must(t, "upgrade", "start", "v1.30.1", "--from-version", "v1.29.4", "--skip-check="+strings.Join(health.Names, ","))
	addr := startWatch(t, k)

	ctx := browserContext(t, browser)
	shots := artifacts(t)
	row := `tr[data-cluster="default"]`
	if err := chromedp.Do(ctx,
		chromedp.Navigate("http://"+addr+"/?refresh=1"),
		chromedp.WaitVisible(row),
	); err != nil {
		t.Fatalf("open the status page: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded = true`)); err != nil {
		t.Fatalf("open the status page: %v", err)
	}
	if got := text(t, ctx, row+" code.next"); !strings.HasPrefix(got, "kupgrade upgrade run --db sqlite:"+dbPath) {
		t.Errorf("next command of a new upgrade: %q", got)
	}

	// The runner died in upgrading-second-master on controller-1 two hours ago, leaving no lease.
	db := openRW(t, dbPath)
	exec1(t, db, `UPDATE kube_upgrade SET state = 'upgrading-second-master', state_entered_at = datetime('now', '-2 hours')`)
	exec1(t, db, `UPDATE kube_host_upgrade SET status = 'upgrading-control-plane' WHERE host_id = (SELECT id FROM host WHERE hostname = 'controller-1')`)
	waitFor(t, ctx, row+` [data-mark="stuck"]`)
	screenshot(t, ctx, shots, "status-stuck.png")
	if got := text(t, ctx, row); !strings.Contains(got, "IN FLIGHT, NOBODY'S LEASE") || !strings.Contains(got, "controller-1") ||
		!strings.Contains(got, "2h") || !strings.Contains(got, "kupgrade recover --db sqlite:"+dbPath) {
		t.Errorf("the stuck row reads:\n%s", got)
	}

	// Failed by hand, and nobody retried it for two hours.
	k.must(t, "upgrade", "failed", "--reason", "kubeadm hung on controller-1")
	exec1(t, db, `UPDATE kube_upgrade SET state_entered_at = datetime('now', '-2 hours')`)
	waitFor(t, ctx, row+` [data-mark="unretried"]`)
	screenshot(t, ctx, shots, "status-unretried.png")
	got := text(t, ctx, row)
	for _, want := range []string{"upgrading-second-master-failed", "FAILED, NOT RETRIED FOR OVER AN HOUR",
		"[controller-1] kubeadm hung on controller-1", "kupgrade host upgrade controller-1 control-plane --db sqlite:" + dbPath} {
		if !strings.Contains(got, want) {
			t.Errorf("the failed row lacks %q:\n%s", want, got)
		}
	}
	if kept, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded === true`)); err != nil || !kept {
		t.Errorf("the page was reloaded (%v): it must refresh in place", err)
	}
}

const statusInventory = `all:
  vars:
    ansible_port: 1
  children:
    controllers:
      hosts:
        controller-0: {ansible_host: 127.0.0.1}
        controller-1: {ansible_host: 127.0.0.1}
`

// chromium finds Debian's chromium; without it the test is skipped, except in CI.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is missing (`make deps` installs Debian's chromium)")
	}
	t.Skip("chromium is missing: `make deps` installs Debian's chromium to test the status page in a browser")
	return ""
}

// startWatch runs `kupgrade watch --listen 127.0.0.1:0` until the test ends and returns the
// address it serves.
func startWatch(t *testing.T, k *kupgrade) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := exec.CommandContext(ctx, k.bin, "watch", "--listen", "127.0.0.1:0", "--interval", "1s", "--stale-after", "24h")
	c.Env = k.env
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Wait() })
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case addr := <-found:
		return addr
	case <-time.After(30 * time.Second):
		t.Fatal("kupgrade watch never said where it listens")
		return ""
	}
}

func browserContext(t *testing.T, browser string) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser),
		chromedp.NoSandbox, chromedp.WindowSize(1400, 700))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelC := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	return ctx
}

// waitFor waits until sel is on the page: the script must bring it without a reload.
func waitFor(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.WaitVisible(sel)); err != nil {
		t.Fatalf("%s never appeared on the status page: %v\n%s", sel, err, text(t, ctx, "body"))
	}
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// artifacts is where screenshots go: KUPGRADE_ARTIFACTS, else the test's temp dir.
func artifacts(t *testing.T) string {
	dir := os.Getenv("KUPGRADE_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// openRW opens the database for an operator's hand edits.
func openRW(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func exec1(t *testing.T, db *sql.DB, stmt string) {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}
