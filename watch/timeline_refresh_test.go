package watch_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/watch"
)

// The timeline follows the database without a reload: a step that ends turns its bar from
// running to done, and the next step's bar appears, in headless Chromium polling every second.
// Another cluster has no event yet: its empty timeline must not stop the page.
func TestTimelineRedrawsItself(t *testing.T) {
	browser := chromiumPath(t)
	f := recoverytest.New(t)
	f.Start(t, "c")
	f.Start(t, "fresh")
	t0 := f.Clk.Now()
	addEvent(t, f, "c", ev{from: state.UpgradeStarted, to: state.DownloadingImages}, t0)
	srv := httptest.NewServer((&watch.Watcher{Store: f.St}).StatusHandler())
	t.Cleanup(srv.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox)
	actx, cancelA := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancelA()
	ctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	ctx, cancelC := context.WithTimeout(ctx, time.Minute)
	defer cancelC()
	bar := func(step, outcome string) string {
		return `.timeline[data-cluster="c"] .tl-row[data-step="` + step + `"][data-outcome="` + outcome + `"]`
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?refresh=1"), chromedp.WaitVisible(bar("downloading-images", "running"))); err != nil {
		t.Fatalf("the running step's bar: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded = true`)); err != nil {
		t.Fatal(err)
	}
	f.Clk.Add(2 * time.Minute)
	addEvent(t, f, "c", ev{at: time.Minute, from: state.DownloadingImages, to: state.DownloadedImages}, t0)
	addEvent(t, f, "c", ev{at: time.Minute, from: state.DownloadedImages, to: state.UpgradingNetworking}, t0)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(bar("downloading-images", "done")), chromedp.WaitVisible(bar("upgrading-networking", "running"))); err != nil {
		t.Fatalf("the timeline was not redrawn after the step ended: %v", err)
	}
	if kept, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded === true`)); err != nil || !kept {
		t.Errorf("the page was reloaded (%v): it must redraw in place", err)
	}
}
