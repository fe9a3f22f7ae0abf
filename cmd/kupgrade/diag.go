package main

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/kupgrade/kupgrade/runner"
)

// colour says whether the live view paints its results: not when NO_COLOR is set (to anything
// but ""), as no-color.org asks, nor on a dumb terminal. It is asked only when stdout is a
// terminal.
func colour() bool {
	return os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// split sends records below Warn to low and the others to high: while the live view draws on
// the terminal, diagnostics go to the run log (diagOut) and only warnings and errors reach the
// screen, where they are written around the live line.
type split struct{ low, high slog.Handler }

func (s split) Enabled(ctx context.Context, l slog.Level) bool {
	if l < slog.LevelWarn {
		return s.low.Enabled(ctx, l)
	}
	return s.high.Enabled(ctx, l)
}

func (s split) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return s.low.Handle(ctx, r)
	}
	return s.high.Handle(ctx, r)
}

func (s split) WithAttrs(as []slog.Attr) slog.Handler {
	return split{s.low.WithAttrs(as), s.high.WithAttrs(as)}
}

func (s split) WithGroup(name string) slog.Handler {
	return split{s.low.WithGroup(name), s.high.WithGroup(name)}
}

// diagOut is where the log's records go: stderr, as ever, unless the live view is on screen;
// then diagnostics (high false) go to the run log, and warnings to stderr around the live line.
type diagOut struct {
	a    *app
	high bool
}

// aside is a Reporter that can clear its live line for another writer's line, and redraw it.
type aside interface{ Aside(func()) }

func (d diagOut) Write(p []byte) (int, error) {
	if !d.a.live {
		return d.a.stderr.Write(p)
	}
	if !d.high && d.a.errTTY && d.a.runLog != nil {
		d.a.runLog.write("log: " + string(p))
		return len(p), nil
	}
	var n int
	var err error
	d.a.aside(func() { n, err = d.a.stderr.Write(p) })
	return n, err
}

// aside runs f, which writes to the terminal, with the live line cleared around it.
func (a *app) aside(f func()) {
	if as, ok := a.rep.(aside); ok && a.live {
		as.Aside(f)
		return
	}
	f()
}

var _ io.Writer = diagOut{}

// Line passes a running command's line on to the reporters that show it (the live view).
func (t tee) Line(host, task, line string) {
	for _, r := range []runner.Reporter{t.a, t.b} {
		if lr, ok := r.(runner.LineReporter); ok {
			lr.Line(host, task, line)
		}
	}
}

// Aside clears the live line of the reporter that draws one around f.
func (t tee) Aside(f func()) {
	if as, ok := t.a.(aside); ok {
		as.Aside(f)
		return
	}
	f()
}
