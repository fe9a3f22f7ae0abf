package recovery_test

import (
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
)

// `upgrade failed` on a kubelet batch clears every host the batch left in flight, not only the
// first, and releases the lease with the last: no host stays in flight with nobody's lease.
func TestFailAllClearsEveryHostOfABatch(t *testing.T) {
	f := recoverytest.New(t)
	f.Start(t, "c1")
	f.Move(t, "c1", state.UpgradingKubelets, "worker-1", state.UpgradingKubelet, "runner-a", -time.Second)
	f.SQL(t, `UPDATE kube_host_upgrade SET status = 'upgrading-kubelet'
		WHERE host_id = (SELECT id FROM host WHERE cluster = 'c1' AND hostname = 'controller-2')`)
	results, err := recovery.FailAll(t.Context(), f.St, recovery.Request{Cluster: "c1", Actor: state.ActorCLI, Reason: "by hand"})
	if err != nil {
		t.Fatalf("FailAll: %v", err)
	}
	if len(results) != 2 {
		t.Fatalf("%d writes, want one per host in flight: %+v", len(results), results)
	}
	for _, h := range []string{"controller-2", "worker-1"} {
		if st := f.Status(t, "c1", h); st != state.UpgradingKubeletFailed {
			t.Errorf("%s is %s, want upgrading-kubelet-failed", h, st)
		}
	}
	if l := f.Lease(t, "c1"); l != nil {
		t.Errorf("lease left: %+v", l)
	}
	if u := f.Upgrade(t, "c1"); u.State != state.UpgradingKubelets {
		t.Errorf("state %s, want upgrading-kubelets (long-lived)", u.State)
	}
}

// A live lease still refuses FailAll without --force, and nothing is written.
func TestFailAllRefusesALiveLease(t *testing.T) {
	f := recoverytest.New(t)
	f.Start(t, "c1")
	f.Move(t, "c1", state.UpgradingKubelets, "worker-1", state.UpgradingKubelet, "runner-a", time.Minute)
	if _, err := recovery.FailAll(t.Context(), f.St, recovery.Request{Cluster: "c1", Actor: state.ActorCLI}); !isConflict(err) {
		t.Fatalf("FailAll under a live lease: %v, want a conflict", err)
	}
	if st := f.Status(t, "c1", "worker-1"); st != state.UpgradingKubelet {
		t.Errorf("worker-1 is %s after a refused FailAll", st)
	}
}
