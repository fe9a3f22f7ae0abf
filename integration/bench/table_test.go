//go:build integration

package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func ok(n int, tool string, wall float64) row {
	return row{N: n, Tool: tool, Runs: 1, measure: measure{Wall: time.Duration(wall * float64(time.Second)), CPU: time.Second}}
}

func TestPrintTableRatios(t *testing.T) {
	rows := []row{ok(20, toolAnsible, 100), ok(20, toolBound, 4), ok(20, toolKupgrade, 5),
		{N: 50, Tool: toolKupgrade, Runs: 3, measure: measure{Err: errors.New("h007: connection refused")}}}
	var b strings.Builder
	printTable(&b, rows)
	out := b.String()
	kp := lineWith(t, out, "20  ", toolKupgrade)
	for _, want := range []string{"5.00", "20.00x", "1.25x"} {
		if !strings.Contains(kp, want) {
			t.Errorf("kupgrade row %q lacks %q", kp, want)
		}
	}
	if !strings.Contains(lineWith(t, out, "50  ", toolKupgrade), "FAILED") {
		t.Errorf("failed run not marked:\n%s", out)
	}
	if !strings.Contains(out, "h007: connection refused") {
		t.Errorf("failure reason not printed:\n%s", out)
	}
}

func lineWith(t *testing.T, out string, parts ...string) string {
	t.Helper()
	for l := range strings.SplitSeq(out, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return l
		}
	}
	t.Fatalf("no line with %q in:\n%s", parts, out)
	return ""
}

func TestTargets(t *testing.T) {
	base := []row{ok(5, toolAnsible, 26), ok(5, toolBound, 1), ok(20, toolAnsible, 110), ok(20, toolBound, 4.5), ok(50, toolBound, 12)}
	tests := []struct {
		name       string
		kp         []float64 // kupgrade's wall at N = 5, 20, 50
		want, miss []string
		extra      []row
	}{
		{"all met", []float64{1.2, 5, 13}, []string{"N=20 22.0x (want >= 20x) PASS", "PASS (linear)", "lower bound worst 1.20x at N=5"}, nil, nil},
		{"too slow", []float64{1.2, 11, 30}, []string{"N=20 10.0x (want >= 20x) MISS", "worst 2.50x at N=50 (want <= 1.3x) MISS"}, nil, nil},
		{"bare library faster", []float64{1.2, 5, 13}, []string{"worst 1.43x at N=20 (want <= 1.3x) MISS"}, nil,
			[]row{ok(20, toolBare, 3.5), ok(50, toolBare, 20)}},
		{"superlinear", []float64{1, 4.6, 25}, []string{"growth s/host 0.200@N=5 0.230@N=20 0.500@N=50", "MISS"}, []string{"(linear)"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := append(append([]row{}, base...), tt.extra...)
			for i, n := range []int{5, 20, 50} {
				rows = append(rows, ok(n, toolKupgrade, tt.kp[i]))
			}
			got := targets(rows, []int{5, 20, 50})
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("targets() = %q, lacks %q", got, w)
				}
			}
			for _, m := range tt.miss {
				if strings.Contains(got, m) {
					t.Errorf("targets() = %q, has %q", got, m)
				}
			}
		})
	}
}
