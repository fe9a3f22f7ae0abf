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
