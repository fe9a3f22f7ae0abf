package state

import (
	"testing"
	"time"
)

// The host-level failed map: a drain, a kubelet or an uncordon that fails keeps its failed twin
// (a retry re-enters the drain's and the uncordon's, and drains again after a failed kubelet); a
// control plane or a kubelet taken back that fails goes back to idle; a failed twin failed again
// stays, and a status left behind (upgraded-kubelet) goes back to idle.
func TestHostFailedTwins(t *testing.T) {
	cases := []struct {
		h               HostStatus
		inFlight, fail  bool
		failedTo, entry HostStatus
	}{
		{HostIdle, false, false, HostIdle, DrainingNode},
		{UpgradingControlPlane, true, false, HostIdle, DrainingNode},
		{DrainingNode, true, false, DrainingNodeFailed, DrainingNode},
		{DrainingNodeFailed, false, true, DrainingNodeFailed, DrainingNode},
		{UpgradingKubelet, true, false, UpgradingKubeletFailed, DrainingNode},
		{UpgradingKubeletFailed, false, true, UpgradingKubeletFailed, DrainingNode},
		{UncordoningNode, true, false, UncordoningNodeFailed, DrainingNode},
		{UncordoningNodeFailed, false, true, UncordoningNodeFailed, UncordoningNode},
		{UpgradedKubelet, false, false, HostIdle, DrainingNode},
		{DowngradingKubelet, true, false, HostIdle, DrainingNode}, // abort --kubelets: as upgrading-kubelet
	}
	for _, c := range cases {
		if c.h.InFlight() != c.inFlight || c.h.Failed() != c.fail || c.h.FailedTo() != c.failedTo || c.h.KubeletEntry() != c.entry {
			t.Errorf("%s: in flight %v, failed %v, fails to %s, a kubelet step enters %s; want %v, %v, %s, %s",
				c.h, c.h.InFlight(), c.h.Failed(), c.h.FailedTo(), c.h.KubeletEntry(), c.inFlight, c.fail, c.failedTo, c.entry)
		}
		if !c.h.Valid() {
			t.Errorf("%s is not valid", c.h)
		}
	}
	if HostStatus("draining").Valid() {
		t.Error("a status that is none is valid")
	}
}

// The kubelet step's phases, in order: each success moves to the next, the last to
// upgraded-kubelet; the failed twin of each in-flight status is a status of the table.
func TestKubeletPhaseWalk(t *testing.T) {
	h, walked := KubeletPhases()[0], []HostStatus{}
	for h != UpgradedKubelet {
		walked = append(walked, h)
		next, ok := h.NextKubeletPhase()
		if !ok || len(walked) > 5 {
			t.Fatalf("walk stopped at %s after %v", h, walked)
		}
		h = next
	}
	if len(walked) != 3 || walked[0] != DrainingNode || walked[1] != UpgradingKubelet || walked[2] != UncordoningNode {
		t.Fatalf("walked %v", walked)
	}
	if _, ok := UpgradingControlPlane.NextKubeletPhase(); ok {
		t.Error("upgrading-control-plane is a kubelet phase")
	}
	for _, s := range InFlightHostStatuses() {
		if !s.FailedTo().Valid() {
			t.Errorf("%s fails to %q, no status", s, s.FailedTo())
		}
	}
}

// A host whose drain, kubelet or uncordon failed is not skipped by the kubelet pre-check even
// when its kubelet reports the target: kupgrade cordoned it, and only its retry uncordons it.
func TestCheckKubeletNeverSkipsAFailedPhase(t *testing.T) {
	u := Upgrade{Cluster: "c", State: UpgradingKubelets, ToVersion: "v1.30.1"}
	for _, st := range []HostStatus{HostIdle, DrainingNodeFailed, UpgradingKubeletFailed, UncordoningNodeFailed} {
		hs := []Host{{Hostname: "w", Personality: Worker, KubeletVersion: "v1.30.1", Status: st}}
		skip, err := CheckKubelet(u, hs, "w", nil, time.Now())
		if err != nil || skip != (st == HostIdle) {
			t.Errorf("%s: skip %v (%v), want %v", st, skip, err, st == HostIdle)
		}
	}
}
