package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// testMarkComparesTheGeneration: a kubelet mark read before another kubelet step started on
// the host is a conflict naming the generation, even once that step has failed the host back to
// the status the mark read (idle, its node cordoned meanwhile); the mark read afterwards is
// written. Each start returns the generation it took (state/model/phases.pml, P1).
func testMarkComparesTheGeneration(t *testing.T, b Backend) {
	s := b.Open(t)
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradingKubelets)
	ku := state.UpgradingKubelets
	read := mustUpgrade(t, s, "c1")
	started, err := s.Apply(t.Context(), state.Start("c1", state.ActorCLI, ku, ku, state.LeaseSpec{Owner: "rerun", Operation: "kubelets@worker-0", TTL: time.Minute},
		state.OnHost("worker-0", state.HostIdle, state.DrainingNode)))
	if err != nil {
		t.Fatal(err)
	}
	if now := mustUpgrade(t, s, "c1"); started.Generation != now.Generation || now.Generation <= read.Generation {
		t.Fatalf("generations: read %d, the start returned %d, the row holds %d; want the start's, higher", read.Generation, started.Generation, now.Generation)
	}
	apply(t, s, state.Finish("c1", state.ActorCLI, ku, ku, "rerun", state.OnHost("worker-0", state.DrainingNode, state.UpgradingKubelet)))
	apply(t, s, state.Fail("c1", state.ActorCLI, ku, ku, state.HeldBy("rerun"), state.OnHost("worker-0", state.UpgradingKubelet, state.UpgradingKubeletFailed)))
	mark := func(gen int64) state.Change {
		return state.MarkKubelet("c1", state.ActorRunner, ku, "worker-0", state.UpgradingKubeletFailed, "v1.30.2", 0, state.AtGeneration(gen))
	}
	_, err = s.Apply(t.Context(), mark(read.Generation))
	wantErr(t, "a mark read before the kubelet step started", err, state.ErrConflict)
	if !strings.Contains(err.Error(), "generation") {
		t.Errorf("the refused mark says %q, want the generation named", err)
	}
	wantHost(t, s, "worker-0", state.UpgradingKubeletFailed)
	apply(t, s, mark(started.Generation))
	wantHost(t, s, "worker-0", state.UpgradedKubelet)
}
