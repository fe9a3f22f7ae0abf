package recoverytest

import (
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// StuckSecondMaster is the seed case: kupgrade died on controller-2 during kubeadm upgrade node.
func StuckSecondMaster(t *testing.T, leaseTTL time.Duration) *Fixture {
	t.Helper()
	f := New(t)
	f.Start(t, "default")
	f.Move(t, "default", state.UpgradingSecondMaster, "controller-2", state.UpgradingControlPlane, "host-a:4242:abcd", leaseTTL)
	return f
}

// BadClusters seeds a stale cluster the audit must fail and three an operator's hand edits broke:
// a lease whose expires_at is garbage, a state entered "yesterday", and a state that is not one.
func (f *Fixture) BadClusters(t *testing.T) {
	t.Helper()
	for _, c := range []string{"bad-entered", "bad-lease", "bad-state", "good"} {
		f.Start(t, c)
	}
	f.Move(t, "good", state.UpgradingNetworking, "", "", "", 0)
	f.Move(t, "bad-lease", state.UpgradingFirstMaster, "controller-1", state.UpgradingControlPlane, "dead:1:x", 30*time.Second)
	f.Move(t, "bad-entered", state.UpgradingStorage, "", "", "", 0)
	f.Clk.Add(2 * time.Hour)
	f.SQL(t, "UPDATE upgrade_lease SET expires_at = 'garbage' WHERE cluster = 'bad-lease'")
	f.SQL(t, "UPDATE kube_upgrade SET state_entered_at = 'yesterday' WHERE cluster = 'bad-entered'")
	f.SQL(t, "UPDATE kube_upgrade SET state = 'upgrading-frist-master' WHERE cluster = 'bad-state'")
}
