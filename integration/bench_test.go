//go:build integration

package integration_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/runner"
)

// BenchmarkLabUpgrade times whole upgrades of a two-controller, one-worker lab (`upgrade start`
// then `upgrade run`, one Kubernetes patch version further each iteration) and reports:
//
//   - wall-s/op: the wall time of both commands;
//   - cpu-s/op: kupgrade's own CPU time (user + sys of both processes);
//   - gaps-s/op: the wall time of `upgrade run` covered by no task, from its JSON Lines events
//     (every task result carries its end time and duration; tasks of one play run in parallel on
//     several hosts, so the intervals are merged, not summed). Gaps hold the store's transactions
//     and kupgrade's bookkeeping, but also SSH dials and the probes and checks kupgrade runs
//     outside tasks;
//   - overhead-s/op: cpu + gaps, an upper bound of the time spent outside remote commands (CPU
//     spent inside a gap counts twice). `upgrade start` prints no task events: its remote work
//     (reading the versions over SSH) cannot be told apart, so only its CPU time is counted.
//
// Run: go test -run '^$' -bench LabUpgrade -benchtime 3x ./integration/
func BenchmarkLabUpgrade(b *testing.B) {
	l := lab.Start(b, lab.Options{Controllers: 2, Workers: 1})
	k := buildKupgrade(b, l, filepath.Join(b.TempDir(), "kupgrade.db"))
	var wall, cpu, gaps time.Duration
	b.ResetTimer()
	for i := range b.N {
		version := fmt.Sprintf("v1.30.%d", i+1)
		start := timedRun(b, k, "upgrade", "start", version)
		run := timedRun(b, k, "-o", "json", "upgrade", "run")
		b.StopTimer()
		if !bytes.Contains(run.stdout, []byte(`"to_state":"upgrade-complete"`)) {
			b.Fatalf("upgrade run to %s did not reach upgrade-complete:\n%s", version, run.stdout)
		}
		wall += start.wall + run.wall
		cpu += start.cpu + run.cpu
		gaps += run.wall - covered(b, run)
		timedRun(b, k, "upgrade", "delete")
		b.StartTimer()
	}
	b.StopTimer()
	perOp := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	b.ReportMetric(perOp(wall), "wall-s/op")
	b.ReportMetric(perOp(cpu), "cpu-s/op")
	b.ReportMetric(perOp(gaps), "gaps-s/op")
	b.ReportMetric(perOp(cpu+gaps), "overhead-s/op")
}

type timed struct {
	began, ended time.Time
	wall, cpu    time.Duration
	stdout       []byte
}

// timedRun runs kupgrade to its end (exit 0 required) and measures it from outside.
func timedRun(b *testing.B, k *kupgrade, args ...string) timed {
	b.Helper()
	c, out := k.cmd(b.Context(), args...)
	var stdout bytes.Buffer
	c.Stdout = &stdout
	r := timed{began: time.Now()}
	err := c.Run()
	r.ended = time.Now()
	if err != nil {
		b.Fatalf("kupgrade %v: %v\n%s%s", args, err, stdout.String(), out)
	}
	r.wall = r.ended.Sub(r.began)
	r.cpu = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	r.stdout = stdout.Bytes()
	return r
}

// covered is how much of r's run is inside at least one task, from its task result events.
func covered(b *testing.B, r timed) time.Duration {
	b.Helper()
	type span struct{ from, to time.Time }
	var spans []span
	sc := bufio.NewScanner(bytes.NewReader(r.stdout))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Time     time.Time        `json:"time"`
			Event    runner.EventKind `json:"event"`
			Duration *float64         `json:"duration"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			b.Fatalf("event %q: %v", sc.Text(), err)
		}
		switch e.Event {
		case runner.EventTaskOK, runner.EventTaskChanged, runner.EventTaskFailed, runner.EventTaskSkipped, runner.EventHostUnreachable:
			if e.Duration != nil && *e.Duration > 0 {
				d := time.Duration(*e.Duration * float64(time.Second))
				spans = append(spans, span{maxTime(e.Time.Add(-d), r.began), minTime(e.Time, r.ended)})
			}
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	slices.SortFunc(spans, func(x, y span) int { return x.from.Compare(y.from) })
	var total time.Duration
	var cur span
	for _, s := range spans {
		switch {
		case cur.to.IsZero():
			cur = s
		case !s.from.After(cur.to):
			cur.to = maxTime(cur.to, s.to)
		default:
			total += cur.to.Sub(cur.from)
			cur = s
		}
	}
	if !cur.to.IsZero() {
		total += cur.to.Sub(cur.from)
	}
	return total
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
