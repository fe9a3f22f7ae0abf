package upgrade_test

import (
	"context"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/upgrade"
)

// Every step's playbook runs under the host fence, stamped with the upgrade's id and the
// generation of the lease the step holds while it runs, and claiming the host for the upgrade's
// cluster for a lease's TTL.
func TestEveryPlayIsFencedWithItsLease(t *testing.T) {
	f := newFixture(t)
	u, err := f.w.Start(t.Context(), "v1.30.1", "", false)
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	plays := 0
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		plays++
		// The kubelet step's later phases run under the lease and fence of its drain.
		later := name == "kubelet:"+playbooks.TagKubelet || name == "kubelet:"+playbooks.TagUncordon
		fence := f.c.fence
		l, err := f.st.Lease(ctx, "default")
		switch {
		case err != nil || l == nil:
			t.Errorf("%s@%s: no lease while it runs (%v)", name, limit, err)
		case fence == nil:
			t.Errorf("%s@%s ran without a fence", name, limit)
		case fence.Key != u.UUID || fence.Generation != l.Generation || fence.Owner != l.Owner:
			t.Errorf("%s@%s: fence %+v, want key %s, the lease's generation %d and owner %s", name, limit, *fence, u.UUID, l.Generation, l.Owner)
		case later && fence.Generation != last:
			t.Errorf("%s@%s: generation %d, not the drain's %d", name, limit, fence.Generation, last)
		case !later && fence.Generation <= last:
			t.Errorf("%s@%s: generation %d, not above the previous step's %d", name, limit, fence.Generation, last)
		case fence.Cluster != u.Cluster || fence.Claim != f.w.LeaseTTL:
			t.Errorf("%s@%s: fence cluster %q, claim %s, want the upgrade's cluster %q and the lease's TTL %s", name, limit, fence.Cluster, fence.Claim, u.Cluster, f.w.LeaseTTL)
		case fence.Wait != 2*time.Minute:
			t.Errorf("%s@%s: fence wait %s, want the default 2m", name, limit, fence.Wait)
		}
		if fence != nil {
			last = fence.Generation
		}
		return nil, nil, false
	}
	if err := f.w.Run(t.Context(), upgrade.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if plays == 0 {
		t.Fatal("no playbook ran")
	}
}
