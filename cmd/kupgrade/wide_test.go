package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

// TestWideKeepsWholeFailure: `host list` cuts a long failure to fit; `--wide` prints it whole.
func TestWideKeepsWholeFailure(t *testing.T) {
	long := "kubeadm upgrade apply failed: " + strings.Repeat("static pod kube-apiserver not ready ", 4) + "END"
	hosts := []state.Host{{ID: 1, Hostname: "cp-0", LastFailure: long}}
	var cut, whole strings.Builder
	writeHosts(&cut, hosts, cellWidth(false, 72), false)
	writeHosts(&whole, hosts, cellWidth(true, 72), false)
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
	writeHosts(&b, []state.Host{past, live}, 72, false)
	lines := strings.Split(b.String(), "\n")
	if !strings.Contains(lines[1], "(resolved)") || strings.Contains(lines[2], "(resolved)") {
		t.Errorf("want only cp-0 marked resolved:\n%s", b.String())
	}
	vs := newHostViews([]state.Host{past, live}, false)
	if !vs[0].Resolved || vs[1].Resolved {
		t.Errorf("json resolved = %v, %v; want true, false", vs[0].Resolved, vs[1].Resolved)
	}
}

// Once the upgrade has completed, every failure of its hosts is resolved, though the hosts are
// back to idle: host list marks the one the retry got past, and -o json says resolved.
func TestFailureResolvedOnceTheUpgradeCompletes(t *testing.T) {
	f := startFleet(t, 2, func(i int) bool { return i == 1 })
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	run := func(args ...string) (int, string, string) {
		return kupgrade(t, append([]string{"--db", db, "-i", filepath.Join(f.Inventories, f.Clusters[1].Name+".yml")}, args...)...)
	}
	if code, out, errs := run("upgrade", "start", "v1.30.1", "--skip-check", "drain,etcd,nodes-ready,control-plane,kubelet-skew,certificates,removed-apis"); code != 0 {
		t.Fatalf("upgrade start: %d\n%s%s", code, out, errs)
	}
	if code, _, _ := run("upgrade", "run"); code == 0 {
		t.Fatal("the late kubeadm failure did not fail the first run")
	}
	if _, out, _ := run("host", "list"); strings.Contains(out, "(resolved)") {
		t.Errorf("a failure not yet retried is marked resolved:\n%s", out)
	}
	if code, out, errs := run("upgrade", "run"); code != 0 {
		t.Fatalf("the retry: %d\n%s%s", code, out, errs)
	}
	_, out, _ := run("host", "list")
	if !strings.Contains(out, "(resolved)") {
		t.Errorf("after the upgrade completed, host list does not mark the failure resolved:\n%s", out)
	}
	_, js, _ := run("-o", "json", "host", "list")
	var hs []hostView
	if err := json.Unmarshal([]byte(js), &hs); err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if h.LastFailure != nil && !h.Resolved {
			t.Errorf("-o json: %s's failure is not resolved after completion: %s", h.Hostname, js)
		}
	}
}
