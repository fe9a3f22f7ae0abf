package watch

import (
	"context"
	"fmt"
	"github.com/kupgrade/kupgrade/recovery"
	"log/slog"
	"sync"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// WatchStore is what the watch loop and its status page use of state.Store.
type WatchStore interface {
	recovery.AuditStore
	recovery.FleetReader
	AuditLock(ctx context.Context) (*state.AuditHold, error)
	Upgrades(ctx context.Context) ([]state.Upgrade, error)
	Events(ctx context.Context, cluster string, limit int) ([]state.Event, error)
}

// Watcher runs audit passes every Interval while it holds the store's single-auditor lock.
type Watcher struct {
	Store    WatchStore
	Options  recovery.AuditOptions
	Interval time.Duration // default 1m
	// PassTimeout bounds one pass; the pass runs to its end even after ctx is cancelled, so a
	// shutdown never leaves half an audit behind. Default: 5m.
	PassTimeout time.Duration
	Log         *slog.Logger
	Metrics     *Metrics // may be nil
	// CommandFlags are the global flags the status page adds to each command it prints (the
	// watcher's own --db and -i), so that a command works where it is pasted.
	CommandFlags []string
	// InventoryCluster is the kupgrade_cluster of the watcher's -i ("" when it names none): the
	// commands printed for other clusters do not carry that -i (Where.Command).
	InventoryCluster string
	// OnPass, when set, is called with the report of each pass once it is recorded (the
	// notifications of stuck operations).
	OnPass func(recovery.AuditReport)

	mu      sync.Mutex
	holding bool
	last    *recovery.AuditReport
	lastErr error
	recent  []recovery.Action // newest last, at most recentActions
}

const recentActions = 50

// Run audits until ctx is cancelled (then it returns nil after the pass in progress), or once
// when once is set. While another process holds the audit lock it logs that it waits and tries
// again every interval, taking over when the holder dies; a lock lost while held (its lease not
// renewed in time) stops the audit and the watcher waits again. With once, a held lock is a
// conflict.
func (w *Watcher) Run(ctx context.Context, once bool) error {
	interval := w.interval()
	waiting := false
	for {
		hold, err := w.Store.AuditLock(ctx)
		if ctx.Err() != nil {
			if hold != nil {
				hold.Release()
			}
			return nil
		}
		switch {
		case err != nil:
			return fmt.Errorf("take the audit lock: %w", err)
		case hold == nil && once:
			return fmt.Errorf("another kupgrade watch holds the audit lock of this database and audits every cluster: %w", state.ErrConflict)
		case hold == nil:
			if !waiting {
				w.log().Info("another kupgrade watch holds the audit lock; waiting to take over", "retry_every", interval)
			}
			waiting = true
			if !sleep(ctx, interval) {
				return nil
			}
			continue
		}
		w.log().Info("holding the audit lock: auditing every cluster", "interval", interval, "stale_after", w.Options.StaleAfter)
		w.setHolding(true)
		lost, err := w.audit(ctx, hold, once)
		w.setHolding(false)
		hold.Release()
		if !lost {
			return err
		}
		w.log().Warn("lost the audit lock: stopped auditing; waiting to take it again", "retry_every", interval)
		waiting = true
	}
}

// audit runs loop until ctx is cancelled or the hold is lost (lost is then true).
func (w *Watcher) audit(ctx context.Context, hold *state.AuditHold, once bool) (lost bool, err error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-hold.Lost:
			cancel()
		case <-actx.Done():
		}
	}()
	err = w.loop(actx, once)
	return ctx.Err() == nil && actx.Err() != nil, err
}

// loop runs a pass, then another every interval, while the lock is held. A pass starts only
// while ctx is live.
func (w *Watcher) loop(ctx context.Context, once bool) error {
	for {
		if ctx.Err() != nil {
			return nil
		}
		_, err := w.Pass(ctx)
		if once {
			return err
		}
		if err != nil {
			w.log().Error("audit pass", "err", err)
		}
		if !sleep(ctx, w.interval()) {
			return nil
		}
	}
}

// Pass runs one audit pass under a context detached from ctx's cancellation (bounded by
// PassTimeout), records it for the metrics and the status page, and returns its report.
func (w *Watcher) Pass(ctx context.Context) (recovery.AuditReport, error) {
	timeout := w.PassTimeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	rep, err := recovery.Audit(pctx, w.Store, w.Options)
	w.mu.Lock()
	w.last, w.lastErr = &rep, err
	w.recent = append(w.recent, rep.Actions...)
	if n := len(w.recent) - recentActions; n > 0 {
		w.recent = append([]recovery.Action(nil), w.recent[n:]...)
	}
	w.mu.Unlock()
	if w.Metrics != nil {
		w.Metrics.Observe(rep, err)
	}
	if w.OnPass != nil {
		w.OnPass(rep)
	}
	for _, b := range rep.Bad {
		w.log().Warn("audit skipped a cluster whose rows cannot be read", "cluster", b.Cluster, "state", b.State,
			"err", b.Err, "fix", recovery.BadRowFix(b))
	}
	w.log().Debug("audit pass", "in_flight", len(rep.InFlight), "unreadable", len(rep.Bad), "actions", len(rep.Actions), "took", rep.Duration)
	return rep, err
}

// snapshot is the watcher's state as the status page shows it.
type snapshot struct {
	Holding bool
	Last    *recovery.AuditReport
	LastErr error
	Recent  []recovery.Action // newest first
}

func (w *Watcher) snapshot() snapshot {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := snapshot{Holding: w.holding, Last: w.last, LastErr: w.lastErr}
	for i := len(w.recent) - 1; i >= 0; i-- {
		s.Recent = append(s.Recent, w.recent[i])
	}
	return s
}

func (w *Watcher) setHolding(h bool) {
	w.mu.Lock()
	w.holding = h
	w.mu.Unlock()
	if w.Metrics != nil {
		w.Metrics.setHolding(h)
	}
}

func (w *Watcher) interval() time.Duration {
	if w.Interval <= 0 {
		return time.Minute
	}
	return w.Interval
}

func (w *Watcher) log() *slog.Logger {
	if w.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Log
}

// sleep waits d; false when ctx was cancelled first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
