package watch_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
	"github.com/kupgrade/kupgrade/watch"
)

// eventually polls cond until it holds or the test's patience (10 s) runs out. Its callers run
// in a synctest bubble: the polls, and the watcher's own intervals, wait on the fake clock.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("gave up waiting: %s", what)
}

// A second watcher on the same SQLite file is told, waits, and takes over when the first goes.
func TestWatcherWaitsForTheAuditLockAndTakesOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := recoverytest.StuckSecondMaster(t, -time.Second)
		first, err := f.St.AuditLock(t.Context())
		if err != nil || first == nil {
			t.Fatalf("first watcher's lock: %v, %v", first, err)
		}
		second, err := sqlite.Open(t.Context(), f.Path, state.WithClock(f.Clk.Now))
		if err != nil {
			t.Fatalf("open second store: %v", err)
		}
		t.Cleanup(func() { second.Close() })

		once := &watch.Watcher{Store: second, Interval: 10 * time.Millisecond}
		if err := once.Run(t.Context(), true); !errors.Is(err, state.ErrConflict) {
			t.Fatalf("--once while the lock is held: %v, want a conflict", err)
		}

		var logs runnertest.Buffer
		w := &watch.Watcher{Store: second, Interval: 10 * time.Millisecond,
			Log: slog.New(slog.NewTextHandler(&logs, nil))}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx, false) }()
		eventually(t, "the waiting message", func() bool { return strings.Contains(logs.String(), "waiting to take over") })
		if u := f.Upgrade(t, "default"); u.State != state.UpgradingSecondMaster {
			t.Fatalf("state %s while waiting: a waiting watcher audited", u.State)
		}
		first.Release() // the first watcher dies
		eventually(t, "the takeover's pass", func() bool { return f.Upgrade(t, "default").State == state.UpgradingSecondMasterFailed })
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run after cancel: %v, want nil (graceful shutdown)", err)
		}
		again, err := f.St.AuditLock(t.Context())
		if err != nil || again == nil {
			t.Fatalf("the stopped watcher kept the audit lock (%v)", err)
		}
		again.Release()
	})
}

// losable hands out holds whose loss the test decides, counting the locks taken.
type losable struct {
	watch.WatchStore
	mu    sync.Mutex
	lost  chan struct{}
	taken int
}

func (l *losable) AuditLock(context.Context) (*state.AuditHold, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.taken++
	l.lost = make(chan struct{})
	return state.NewAuditHold(func() {}, l.lost), nil
}

func (l *losable) lose() { l.mu.Lock(); defer l.mu.Unlock(); close(l.lost) }

func (l *losable) count() int { l.mu.Lock(); defer l.mu.Unlock(); return l.taken }

// A watcher whose lock is lost (its lease not renewed in time) stops auditing, says so, and
// takes the lock again before it audits again.
func TestWatcherStopsWhenItLosesTheAuditLock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := recoverytest.StuckSecondMaster(t, -time.Second)
		st := &losable{WatchStore: f.St}
		var logs runnertest.Buffer
		w := &watch.Watcher{Store: st, Interval: 10 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&logs, nil))}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx, false) }()
		eventually(t, "the first pass", func() bool { return f.Upgrade(t, "default").State == state.UpgradingSecondMasterFailed })
		st.lose()
		eventually(t, "the lost-lock message", func() bool { return strings.Contains(logs.String(), "lost the audit lock") })
		eventually(t, "the lock taken again", func() bool { return st.count() == 2 })
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run after cancel: %v, want nil", err)
		}
	})
}

func get(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", path, resp.Status, b)
	}
	return string(b)
}

func TestMetricsAndStatusPage(t *testing.T) {
	f := recoverytest.New(t)
	f.Start(t, "dead")
	f.Move(t, "dead", state.UpgradingSecondMaster, "controller-2", state.UpgradingControlPlane, "gone", 30*time.Second)
	f.Start(t, "busy")
	f.Move(t, "busy", state.UpgradingFirstMaster, "controller-1", state.UpgradingControlPlane, "alive", time.Hour)
	f.Start(t, "idle")
	f.Clk.Add(time.Minute)

	w := &watch.Watcher{Store: f.St, Metrics: watch.NewMetrics()}
	if _, err := w.Pass(t.Context()); err != nil {
		t.Fatalf("pass: %v", err)
	}
	body := get(t, w.Metrics.Handler(), "/metrics")
	for _, want := range []string{
		"kupgrade_audit_passes_total 1",
		`kupgrade_audit_failed_operations_total{state="upgrading-second-master"} 1`,
		"kupgrade_inflight_operations 1",
		`kupgrade_inflight_operation_age_seconds{cluster="busy",state="upgrading-first-master"} 60`,
		`kupgrade_lease_age_seconds{cluster="busy",owner="alive"} 60`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, `cluster="dead"`) {
		t.Error("/metrics still shows the failed cluster as in flight")
	}

	page := get(t, w.StatusHandler(), "/")
	for _, want := range []string{"upgrading-second-master-failed", "busy", "alive (control-plane@controller-1", "idle", "kupgrade watch: the lease of gone"} {
		if !strings.Contains(page, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
}
