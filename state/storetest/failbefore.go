package storetest

import (
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// testFailBeforeTheStart: a kubelet step that failed on a host before it could start there
// leaves the host upgrading-kubelet-failed with its event, the state as it was; it compares the
// host's status and is refused under another's live lease; the retry starts from it.
func testFailBeforeTheStart(t *testing.T, b Backend) {
	s := b.Open(t)
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradingKubelets)
	ku := state.UpgradingKubelets
	failed := func(from state.HostStatus) state.Change {
		return state.FailBefore("c1", state.ActorRunner, ku, "worker-0", from, state.UpgradingKubeletFailed, state.Because("sudo: a password is required"))
	}
	apply(t, s, state.Start("c1", state.ActorRunner, ku, ku, state.LeaseSpec{Owner: "other", Operation: "kubelets@controller-0", TTL: time.Minute},
		state.OnHost("controller-0", state.HostIdle, state.DrainingNode)))
	_, err := s.Apply(t.Context(), failed(state.HostIdle))
	wantErr(t, "a failure before the start under another's live lease", err, state.ErrConflict)
	apply(t, s, state.Finish("c1", state.ActorRunner, ku, ku, "other", state.OnHost("controller-0", state.DrainingNode, state.UpgradedKubelet), state.ReleaseLease()))
	apply(t, s, failed(state.HostIdle))
	wantHost(t, s, "worker-0", state.UpgradingKubeletFailed)
	_, err = s.Apply(t.Context(), failed(state.HostIdle))
	wantErr(t, "a failure before the start that read another status", err, state.ErrConflict)
	evs, err := s.Events(t.Context(), "c1", 1)
	if err != nil || len(evs) != 1 || evs[0].Reason != "sudo: a password is required" || evs[0].ToHostStatus != state.UpgradingKubeletFailed {
		t.Fatalf("newest event %+v (%v), want the failure before the start", evs, err)
	}
	apply(t, s, state.Start("c1", state.ActorRunner, ku, ku, state.LeaseSpec{Owner: "retry", Operation: "kubelets@worker-0", TTL: time.Minute},
		state.OnHost("worker-0", state.UpgradingKubeletFailed, state.UpgradingKubeletFailed.KubeletEntry())))
	wantHost(t, s, "worker-0", state.DrainingNode)
}
