package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Targets of issue 3.
const (
	wantVsAnsible = 20.0  // kupgrade at least this many times faster than ansible-playbook at N=20
	wantVsBound   = 1.3   // kupgrade's wall time at most this many times the lower bound's
	wantLinear    = 1.3   // wall time per host may grow at most this much from one N to the next
	wantMBps      = 200.0 // sshconn upload of 64 MiB
)

// row is one tool at one N: the median of its runs.
type row struct {
	N    int
	Tool string
	Runs int
	measure
}

// summarize reduces runs of one tool at one N to a row: the median wall and CPU time, or the
// first failure when any run failed.
func summarize(n int, tool string, runs []measure) row {
	r := row{N: n, Tool: tool, Runs: len(runs)}
	var walls, cpus []time.Duration
	for _, m := range runs {
		if m.Err != nil && r.Err == nil {
			r.Err = m.Err
		}
		walls, cpus = append(walls, m.Wall), append(cpus, m.CPU)
	}
	r.Wall, r.CPU = median(walls), median(cpus)
	return r
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// find returns the successful row of tool at n.
func find(rows []row, n int, tool string) (row, bool) {
	for _, r := range rows {
		if r.N == n && r.Tool == tool && r.Err == nil && r.Wall > 0 {
			return r, true
		}
	}
	return row{}, false
}

// ratio is a/b as "12.3x", or "-" when either is missing.
func ratio(a, b time.Duration, okA, okB bool) string {
	if !okA || !okB || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a.Seconds()/b.Seconds())
}

// bound is the Go lower bound at n: the faster of the two Go clients without playbook machinery
// (kupgrade's transport, and the bare library with a session per command).
func bound(rows []row, n int) (row, bool) {
	s, okS := find(rows, n, toolBound)
	b, okB := find(rows, n, toolBare)
	if okB && (!okS || b.Wall < s.Wall) {
		return b, true
	}
	return s, okS
}

// printTable writes the measurements: "vs ansible" is ansible's wall time over the tool's
// (how many times faster), "vs bound" the tool's over the lower bound's (1.00x is the best).
func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "N\ttool\truns\twall s\tclient CPU s\tCPU ms/host-task\tvs ansible\tvs bound\t")
	for _, r := range rows {
		if r.Err != nil {
			fmt.Fprintf(tw, "%d\t%s\t%d\tFAILED\t-\t-\t-\t-\t\n", r.N, r.Tool, r.Runs)
			continue
		}
		an, okA := find(rows, r.N, toolAnsible)
		lb, okB := bound(rows, r.N)
		perTask := r.CPU.Seconds() * 1000 / float64(r.N*(commandTasks+2))
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.2f\t%.2f\t%.1f\t%s\t%s\t\n", r.N, r.Tool, r.Runs, r.Wall.Seconds(),
			r.CPU.Seconds(), perTask, ratio(an.Wall, r.Wall, okA, true), ratio(r.Wall, lb.Wall, true, okB))
	}
	tw.Flush()
	for _, r := range rows {
		if r.Err != nil {
			fmt.Fprintf(w, "FAILED N=%d %s: %v\n", r.N, r.Tool, r.Err)
		}
	}
}

// targets is the closing verdict against issue 3's targets.
func targets(rows []row, ns []int) string {
	var parts []string
	at := 20
	if _, ok := find(rows, at, toolAnsible); !ok {
		at = 0
		for _, n := range ns {
			if _, ok := find(rows, n, toolAnsible); ok {
				at = n
			}
		}
	}
	kp, okK := find(rows, at, toolKupgrade)
	an, okA := find(rows, at, toolAnsible)
	if okK && okA {
		x := an.Wall.Seconds() / kp.Wall.Seconds()
		parts = append(parts, fmt.Sprintf("vs ansible at N=%d %.1fx (want >= %.0fx) %s", at, x, wantVsAnsible, verdict(x >= wantVsAnsible)))
	} else {
		parts = append(parts, "vs ansible: not measured")
	}
	worst, worstN := 0.0, 0
	for _, n := range ns {
		k, ok1 := find(rows, n, toolKupgrade)
		b, ok2 := bound(rows, n)
		if ok1 && ok2 && k.Wall.Seconds()/b.Wall.Seconds() > worst {
			worst, worstN = k.Wall.Seconds()/b.Wall.Seconds(), n
		}
	}
	if worstN > 0 {
		parts = append(parts, fmt.Sprintf("vs lower bound worst %.2fx at N=%d (want <= %.1fx) %s", worst, worstN, wantVsBound, verdict(worst <= wantVsBound)))
	}
	parts = append(parts, linearity(rows, ns))
	return "targets: kupgrade " + strings.Join(parts, "; ")
}

// linearity compares kupgrade's wall time per host from one N to the next: a cost that grows
// faster than N shows as seconds per host rising.
func linearity(rows []row, ns []int) string {
	var per []string
	ok, prev, seen := true, 0.0, 0
	for _, n := range ns {
		k, found := find(rows, n, toolKupgrade)
		if !found {
			continue
		}
		s := k.Wall.Seconds() / float64(n)
		if seen > 0 && s > prev*wantLinear {
			ok = false
		}
		per = append(per, fmt.Sprintf("%.3f@N=%d", s, n))
		prev, seen = s, seen+1
	}
	if seen < 2 {
		return "growth: not enough N measured"
	}
	shape := "(linear)"
	if !ok {
		shape = "(grows faster than N)"
	}
	return fmt.Sprintf("growth s/host %s (want each <= %.1fx the previous) %s %s", strings.Join(per, " "), wantLinear, verdict(ok), shape)
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}
