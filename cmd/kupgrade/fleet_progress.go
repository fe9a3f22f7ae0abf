package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/state"
)

// fleetProgress prints a progress line every `every` until ctx ends: the whole fleet's count
// as the database holds it (every runner's work), this run's elapsed time and the estimate of
// the time left at the fleet's rate. The returned function stops it and waits for it.
func (a *app) fleetProgress(ctx context.Context, st fleet.Store, name string, every time.Duration) func() {
	if every <= 0 || a.json() {
		return func() {}
	}
	a.stdout = &lockedWriter{w: a.stdout}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			rows, err := st.FleetRows(ctx, name)
			if err != nil {
				a.log.Debug("fleet progress", "error", err)
				continue
			}
			line := progressLine(fleet.OverviewOf(rows, st.Now()), time.Since(start))
			a.aside(func() { io.WriteString(a.stdout, line) })
		}
	}()
	return func() { cancel(); <-done }
}

// progressLine is `PROGRESS  12/30 done  1 failed  5 running  elapsed 4m10s  left about 7m0s`.
func progressLine(s fleet.Overview, elapsed time.Duration) string {
	left := "unknown until a cluster is done"
	if s.Left > 0 {
		left = "about " + s.Left.String()
	}
	return fmt.Sprintf("PROGRESS  %d/%d done  %d failed  %d running  elapsed %s  left %s\n", s.Outcomes[state.FleetDone], s.Total,
		s.Outcomes[state.FleetFailed], s.Claimed, elapsed.Truncate(time.Second), left)
}

// lockedWriter lets the progress line's goroutine and the fleet loop's lines share stdout.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
