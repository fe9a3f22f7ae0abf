package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/upgrade"
)

// The plan shows kubeadm's table: per host the kubelet, and on a controller the three static
// pods, each with its current version and the target; a row already there says so.
func TestPlanComponentRows(t *testing.T) {
	p := &upgrade.Preview{To: "v1.30.1", Versions: []upgrade.HostVersions{
		{Host: "controller-0", Personality: "controller", ControlPlane: "v1.29.4", Kubelet: "v1.29.4"},
		{Host: "worker-0", Personality: "worker", Kubelet: "v1.30.1"},
	}}
	cs := components(p)
	if len(cs) != 5 {
		t.Fatalf("%d rows, want 5 (controller: kubelet and 3 static pods; worker: kubelet): %+v", len(cs), cs)
	}
	var b bytes.Buffer
	writeComponents(&b, cs)
	var rows []string
	for _, l := range strings.Split(b.String(), "\n") {
		rows = append(rows, strings.Join(strings.Fields(l), " "))
	}
	for _, want := range []string{
		"COMPONENT HOST CURRENT TARGET",
		"kube-apiserver controller-0 v1.29.4 v1.30.1",
		"kube-scheduler controller-0 v1.29.4 v1.30.1",
		"kubelet worker-0 v1.30.1 v1.30.1 (already)",
	} {
		if !slices.Contains(rows, want) {
			t.Errorf("component table lacks %q:\n%s", want, b.String())
		}
	}
	if slices.Contains(rows, "kube-apiserver worker-0 - v1.30.1") {
		t.Errorf("a worker got a static-pod row:\n%s", b.String())
	}
}
