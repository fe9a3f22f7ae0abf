package state_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// A live lease refuses a second operation as a conflict, and the refusal gives the same ways
// out as `upgrade show`'s next: wait, recover --force when its process is gone, recover once it
// has expired. An expired lease refuses nothing.
func TestCheckLeaseRefusal(t *testing.T) {
	now := time.Now()
	u := state.Upgrade{Cluster: "east", State: state.UpgradingSecondMaster}
	lease := &state.Lease{Owner: "ctl:4242:abcd", Operation: "second-master@controller-1", HeartbeatAt: now, ExpiresAt: now.Add(time.Minute)}
	err := state.CheckLease(u, lease, now)
	if !errors.Is(err, state.ErrConflict) {
		t.Fatalf("a live lease: %v, want a conflict", err)
	}
	for _, want := range []string{"second-master@controller-1", "wait for it", "`kupgrade recover --force`", "`kupgrade recover` once the lease has expired"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	if err := state.CheckLease(u, lease, now.Add(2*time.Minute)); err != nil {
		t.Errorf("an expired lease refuses: %v", err)
	}
}
