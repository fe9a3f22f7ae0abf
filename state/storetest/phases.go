package storetest

import (
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// testKubeletPhases walks a host through the kubelet step's phases under the lease: every move
// compares the status it read, another owner's move is a conflict, a drain that fails keeps
// draining-node-failed (its reason the host's last failure, the lease released with it), the
// retry enters draining-node again, and an uncordon that fails keeps uncordoning-node-failed,
// whose retry enters uncordoning-node.
func testKubeletPhases(t *testing.T, b Backend) {
	s := b.Open(t)
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradingKubelets)
	ku := state.UpgradingKubelets
	start := func(owner string, from state.HostStatus) state.Change {
		return state.Start("c1", state.ActorRunner, ku, ku, state.LeaseSpec{Owner: owner, Operation: "kubelets@worker-0", TTL: time.Minute},
			state.OnHost("worker-0", from, from.KubeletEntry()))
	}
	move := func(owner string, from, to state.HostStatus) state.Change {
		return state.Finish("c1", state.ActorRunner, ku, ku, owner, state.OnHost("worker-0", from, to))
	}
	fail := func(owner string, from state.HostStatus) state.Change {
		return state.Fail("c1", state.ActorRunner, ku, ku, state.HeldBy(owner), state.OnHost("worker-0", from, from.FailedTo()), state.Because("drain blocked by default/web-pdb"))
	}
	apply(t, s, start("r1", state.HostIdle))
	wantHost(t, s, "worker-0", state.DrainingNode)
	_, err := s.Apply(t.Context(), move("other", state.DrainingNode, state.UpgradingKubelet))
	wantErr(t, "another owner's move", err, state.ErrConflict)
	_, err = s.Apply(t.Context(), move("r1", state.UpgradingKubelet, state.UncordoningNode))
	wantErr(t, "a move from a status the host is not in", err, state.ErrConflict)
	_, err = s.Apply(t.Context(), state.Fail("c1", state.ActorRunner, ku, ku, state.HeldBy("r1"), state.OnHost("worker-0", state.DrainingNode, state.HostIdle)))
	wantErr(t, "a drain failed to idle", err, state.ErrBadInput)
	apply(t, s, fail("r1", state.DrainingNode))
	wantHost(t, s, "worker-0", state.DrainingNodeFailed)
	if l, _ := s.Lease(t.Context(), "c1"); l != nil {
		t.Fatalf("the lease outlived the batch's last host: %+v", l)
	}
	if h := hostNamed(t, s, "worker-0"); h.LastFailure != "drain blocked by default/web-pdb" {
		t.Errorf("last failure %q, want the drain's", h.LastFailure)
	}
	apply(t, s, start("r2", state.DrainingNodeFailed))
	wantHost(t, s, "worker-0", state.DrainingNode)
	apply(t, s, move("r2", state.DrainingNode, state.UpgradingKubelet))
	apply(t, s, move("r2", state.UpgradingKubelet, state.UncordoningNode))
	apply(t, s, fail("r2", state.UncordoningNode))
	wantHost(t, s, "worker-0", state.UncordoningNodeFailed)
	apply(t, s, start("r3", state.UncordoningNodeFailed))
	wantHost(t, s, "worker-0", state.UncordoningNode)
	apply(t, s, state.Finish("c1", state.ActorRunner, ku, ku, "r3", state.OnHost("worker-0", state.UncordoningNode, state.UpgradedKubelet), state.ReleaseLease()))
	wantHost(t, s, "worker-0", state.UpgradedKubelet)
	if l, _ := s.Lease(t.Context(), "c1"); l != nil {
		t.Fatalf("the lease outlived the uncordon: %+v", l)
	}
}

// testPhaseInFlightForTheAudit: a host left draining-node or uncordoning-node by a runner
// whose lease is gone is listed in flight, as upgrading-kubelet is, and no other operation may
// take the lease while it is.
func testPhaseInFlightForTheAudit(t *testing.T, b Backend) {
	clock := NewClock()
	s := b.Open(t, state.WithClock(clock.Now))
	ku := state.UpgradingKubelets
	for _, hs := range []state.HostStatus{state.DrainingNode, state.UncordoningNode} {
		cluster := "c-" + string(hs)
		create(t, s, cluster)
		walk(t, s, cluster, ku)
		apply(t, s, state.Start(cluster, state.ActorRunner, ku, ku, state.LeaseSpec{Owner: "dead", Operation: "kubelets@worker-0", TTL: time.Minute},
			state.OnHost("worker-0", state.HostIdle, state.DrainingNode)))
		if hs == state.UncordoningNode {
			apply(t, s, state.Finish(cluster, state.ActorRunner, ku, ku, "dead", state.OnHost("worker-0", state.DrainingNode, state.UpgradingKubelet)))
			apply(t, s, state.Finish(cluster, state.ActorRunner, ku, ku, "dead", state.OnHost("worker-0", state.UpgradingKubelet, hs)))
		}
	}
	clock.Add(2 * time.Minute)
	_, err := s.Apply(t.Context(), state.Start("c-draining-node", state.ActorRunner, ku, ku, state.LeaseSpec{Owner: "new", Operation: "kubelets@worker-1", TTL: time.Minute},
		state.OnHost("worker-1", state.HostIdle, state.DrainingNode)))
	wantErr(t, "a new batch beside a host left draining-node", err, state.ErrConflict)
	ops, bad, err := s.InFlight(t.Context())
	if err != nil || len(bad) != 0 {
		t.Fatal(bad, err)
	}
	got := map[string]state.HostStatus{}
	for _, op := range ops {
		for _, h := range op.Hosts {
			got[op.Upgrade.Cluster] = h.Status
		}
	}
	if got["c-draining-node"] != state.DrainingNode || got["c-uncordoning-node"] != state.UncordoningNode {
		t.Fatalf("in flight for the audit: %v, want each cluster's worker-0 in its phase", got)
	}
}

func apply(t testing.TB, s state.Store, c state.Change) {
	t.Helper()
	if _, err := s.Apply(t.Context(), c); err != nil {
		t.Fatalf("%s -> %s on %s (%s -> %s): %v", c.From(), c.To(), c.Host(), c.HostFrom(), c.HostTo(), err)
	}
}

func hostNamed(t testing.TB, s state.Store, name string) state.Host {
	t.Helper()
	hs, err := s.Hosts(t.Context(), "c1")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if h.Hostname == name {
			return h
		}
	}
	t.Fatalf("no host %s", name)
	return state.Host{}
}

func wantHost(t testing.TB, s state.Store, name string, want state.HostStatus) {
	t.Helper()
	if got := hostNamed(t, s, name).Status; got != want {
		t.Fatalf("host %s is %s, want %s", name, got, want)
	}
}
