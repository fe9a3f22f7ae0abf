package runner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// BenchmarkPlay20Hosts measures the engine's own cost: 10 command tasks on 20 hosts over
// FakeConn, which answers at once. ns/host-task and allocs/host-task are the figures.
func BenchmarkPlay20Hosts(b *testing.B) {
	const hosts, tasks = 20, 10
	var inv strings.Builder
	inv.WriteString("all:\n  hosts:\n")
	for i := range hosts {
		fmt.Fprintf(&inv, "    h%02d:\n      kube_role: node\n", i)
	}
	var pb strings.Builder
	pb.WriteString("- hosts: all\n  gather_facts: false\n  vars:\n    v: 1\n  tasks:\n")
	for i := range tasks {
		fmt.Fprintf(&pb, "    - name: task %d\n      command: /bin/true {{ inventory_hostname }} %d\n      register: r%d\n", i, i, i)
	}
	i, p := setupB(b, inv.String(), pb.String())
	d := &runnertest.FakeDialer{New: func(string) *runnertest.FakeConn { return &runnertest.FakeConn{SkipRecord: true} }}
	r := runner.New(d, runner.Options{Forks: hosts})
	defer r.Close()
	if _, err := r.Play(b.Context(), p, i, runner.PlayOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Play(b.Context(), p, i, runner.PlayOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	n := float64(b.N * hosts * tasks)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/host-task")
	allocs := testing.AllocsPerRun(1, func() { r.Play(b.Context(), p, i, runner.PlayOptions{}) })
	b.ReportMetric(allocs/float64(hosts*tasks), "allocs/host-task")
}
