package main

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

// TestWideKeepsWholeFailure: `host list` cuts a long failure to fit; `--wide` prints it whole.
func TestWideKeepsWholeFailure(t *testing.T) {
	long := "kubeadm upgrade apply failed: " + strings.Repeat("static pod kube-apiserver not ready ", 4) + "END"
	hosts := []state.Host{{ID: 1, Hostname: "cp-0", LastFailure: long}}
	var cut, whole strings.Builder
	writeHosts(&cut, hosts, cellWidth(false, 72))
	writeHosts(&whole, hosts, cellWidth(true, 72))
	if strings.Contains(cut.String(), "END") || !strings.Contains(cut.String(), "…") {
		t.Errorf("host list without --wide should cut the failure:\n%s", cut.String())
	}
	if !strings.Contains(whole.String(), long) {
		t.Errorf("host list --wide lost part of the failure:\n%s", whole.String())
	}
	vs := []historyView{{Time: "t", Reason: long}}
	cut.Reset()
	whole.Reset()
	writeHistory(&cut, vs, false, cellWidth(false, 90))
	writeHistory(&whole, vs, false, cellWidth(true, 90))
	if strings.Contains(cut.String(), "END") || !strings.Contains(whole.String(), long) {
		t.Errorf("history: cut\n%s\nwide\n%s", cut.String(), whole.String())
	}
}

// TestResolvedFailure: a failure the host's kubelet step later got past is marked as such, in the
// table and in -o json; a live failure (host back to idle) is not.
func TestResolvedFailure(t *testing.T) {
	past := state.Host{ID: 1, Hostname: "cp-0", LastFailure: "kubelet restart timed out", Status: state.UpgradedKubelet}
	live := state.Host{ID: 2, Hostname: "cp-1", LastFailure: "kubelet restart timed out", Status: state.HostIdle}
	var b strings.Builder
	writeHosts(&b, []state.Host{past, live}, 72)
	lines := strings.Split(b.String(), "\n")
	if !strings.Contains(lines[1], "(resolved)") || strings.Contains(lines[2], "(resolved)") {
		t.Errorf("want only cp-0 marked resolved:\n%s", b.String())
	}
	vs := newHostViews([]state.Host{past, live})
	if !vs[0].Resolved || vs[1].Resolved {
		t.Errorf("json resolved = %v, %v; want true, false", vs[0].Resolved, vs[1].Resolved)
	}
}
