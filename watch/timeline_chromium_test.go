package watch_test

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/watch"
)

// The timelines of a completed and a failed upgrade, as headless Chromium renders the status
// page: a bar per step and per kubelet, green, red where it failed with the reason beside it
// (its markup and its terminal escapes shown as text). Screenshots go to KUPGRADE_ARTIFACTS
// (docs/img holds the ones of the operator's guide), else to a temporary folder.
func TestTimelineInChromium(t *testing.T) {
	browser := chromiumPath(t)
	f := recoverytest.New(t)
	f.Clk.Add(-time.Hour)
	f.Start(t, "done")
	f.Start(t, "broken")
	m := time.Minute
	steps := []struct {
		cluster, host string
		at            time.Duration
		from, to      state.State
		fromH, toH    state.HostStatus
		reason        string
	}{
		{"done", "", 0, state.UpgradeStarted, state.DownloadingImages, "", "", ""},
		{"done", "", 3 * m, state.DownloadingImages, state.DownloadedImages, "", "", ""},
		{"done", "controller-1", 4 * m, state.DownloadedImages, state.UpgradingFirstMaster, "", state.UpgradingControlPlane, ""},
		{"done", "controller-1", 12 * m, state.UpgradingFirstMaster, state.UpgradedFirstMaster, state.UpgradingControlPlane, "", ""},
		{"done", "worker-1", 13 * m, state.UpgradingKubelets, state.UpgradingKubelets, "", state.UpgradingKubelet, ""},
		{"done", "worker-1", 16 * m, state.UpgradingKubelets, state.UpgradingKubelets, state.UpgradingKubelet, state.UpgradedKubelet, ""},
		{"broken", "", 0, state.UpgradeStarted, state.DownloadingImages, "", "", ""},
		{"broken", "", 2 * m, state.DownloadingImages, state.DownloadedImages, "", "", ""},
		{"broken", "controller-1", 3 * m, state.DownloadedImages, state.UpgradingFirstMaster, "", state.UpgradingControlPlane, ""},
		{"broken", "controller-1", 9 * m, state.UpgradingFirstMaster, state.UpgradingFirstMasterFailed, state.UpgradingControlPlane, "",
			"kubeadm upgrade apply exited 1: \x1b[31m<img src=x onerror=document.title='owned'>static pods not ready\x1b[0m"},
	}
	t0 := f.Clk.Now()
	for _, s := range steps {
		addEvent(t, f, s.cluster, ev{at: s.at, host: s.host, from: s.from, to: s.to, fromH: s.fromH, toH: s.toH, reason: s.reason}, t0)
	}
	f.Move(t, "done", state.UpgradeComplete, "", "", "", 0)
	f.Move(t, "broken", state.UpgradingFirstMasterFailed, "", "", "", 0)
	f.Clk.Add(time.Hour)
	srv := httptest.NewServer((&watch.Watcher{Store: f.St}).StatusHandler())
	t.Cleanup(srv.Close)

	dom := headless(t, browser, "--dump-dom", srv.URL)
	want := map[string]string{
		"done":   "downloading-images  done|upgrading-first-master controller-1 done|kubelet worker-1 done",
		"broken": "downloading-images  done|upgrading-first-master controller-1 failed",
	}
	for cluster, bars := range want {
		if got := drawnBars(dom, cluster); got != bars {
			t.Errorf("the bars of %s in the page:\n got %q\nwant %q", cluster, got, bars)
		}
	}
	for _, w := range []string{"6m, FAILED: kubeadm upgrade apply exited 1: \\u001b[31m&lt;img src=x onerror=document.title='owned'&gt;static pods not ready\\u001b[0m",
		"done: upgrade-complete, started "} {
		if !strings.Contains(dom, w) {
			t.Errorf("the page lacks %q:\n%s", w, dom)
		}
	}
	if strings.Contains(dom, "\x1b") || strings.Contains(dom, "<title>owned") || strings.Contains(dom, "<img src=x") {
		t.Errorf("host text became markup or kept its terminal escapes:\n%s", dom)
	}
	dir := os.Getenv("KUPGRADE_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	shot := filepath.Join(dir, "status-timeline.png")
	headless(t, browser, "--screenshot="+shot, "--window-size=1400,900", srv.URL)
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Errorf("no screenshot at %s: %v", shot, err)
	}
}

// drawnBars lists the bars drawn in the timeline of cluster: "step host outcome", joined by |.
func drawnBars(dom, cluster string) string {
	_, box, _ := strings.Cut(dom, `<div class="timeline" data-cluster="`+cluster+`">`)
	box, _, _ = strings.Cut(box, `<div class="timeline" `)
	bars := regexp.MustCompile(`<div class="tl-row [a-z]+" data-step="([a-z-]+)" data-host="([^"]*)" data-outcome="([a-z]+)">`)
	var got []string
	for _, m := range bars.FindAllStringSubmatch(box, -1) {
		got = append(got, m[1]+" "+m[2]+" "+m[3])
	}
	return strings.Join(got, "|")
}

// headless runs Debian's chromium headless on the page at url with args.
func headless(t *testing.T, browser string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + t.TempDir()}, args...)
	out, err := exec.CommandContext(ctx, browser, all...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", browser, strings.Join(all, " "), err)
	}
	return string(out)
}

// chromiumPath finds Debian's chromium; without it the test is skipped, except in CI.
func chromiumPath(t *testing.T) string {
	if testing.Short() {
		t.Skip("-short (make check): the status page is rendered in Chromium by make test")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is missing (`make deps` installs Debian's chromium)")
	}
	t.Skip("chromium is missing: `make deps` installs Debian's chromium to render the status page")
	return ""
}

// addEvent writes e of cluster's upgrade into the database as a runner would have, at t0+e.at.
func addEvent(t *testing.T, f *recoverytest.Fixture, cluster string, e ev, t0 time.Time) {
	t.Helper()
	f.SQL(t, `INSERT INTO kube_upgrade_event (cluster, upgrade_uuid, hostname, actor, from_state, to_state,
		from_host_status, to_host_status, reason, created_at) SELECT cluster, uuid, NULLIF(?, ''), 'runner', ?, ?,
		NULLIF(?, ''), NULLIF(?, ''), ?, ? FROM kube_upgrade WHERE cluster = ?`,
		e.host, string(e.from), string(e.to), string(e.fromH), string(e.toH), e.reason,
		t0.Add(e.at).UTC().Format("2006-01-02 15:04:05.000000"), cluster)
}
