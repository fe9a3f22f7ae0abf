package storetest

import (
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// testOldLeaseNameRefusesWrites: kube_upgrade_lease, where a kupgrade older than schema 0008
// takes, renews and releases leases, is only a view of upgrade_lease now. Every write through it
// fails (the older binary stops instead of running kubeadm unfenced) and changes nothing; a read
// still shows the live lease.
func testOldLeaseNameRefusesWrites(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradedNetworking)
	create(t, s, "c2")
	lease := state.LeaseSpec{Owner: "new", Operation: "control-plane@controller-0", TTL: time.Hour}
	if _, err := s.Apply(ctx, state.Start("c1", state.ActorRunner, state.UpgradedNetworking, state.UpgradingFirstMaster, lease)); err != nil {
		t.Fatal(err)
	}
	old := []string{ // what an older kupgrade writes: take c2's lease, renew and release c1's
		"INSERT INTO kube_upgrade_lease (cluster, owner, operation, generation, acquired_at, heartbeat_at, expires_at) " +
			"VALUES ('c2', 'old', 'download-images', 1, '2026-01-01 00:00:00', '2026-01-01 00:00:00', '2099-01-01 00:00:00')",
		"UPDATE kube_upgrade_lease SET owner = 'old', expires_at = '2099-01-01 00:00:00' WHERE cluster = 'c1'",
		"DELETE FROM kube_upgrade_lease WHERE cluster = 'c1'",
	}
	for _, q := range old {
		if _, err := b.DB.ExecContext(ctx, q); err == nil {
			t.Errorf("an older kupgrade's write succeeded: %s", q)
		}
	}
	var owner string
	if err := b.DB.QueryRowContext(ctx, "SELECT owner FROM kube_upgrade_lease WHERE cluster = 'c1'").Scan(&owner); err != nil || owner != "new" {
		t.Errorf("read through the old name: owner %q, %v; want new", owner, err)
	}
	if l, err := s.Lease(ctx, "c1"); err != nil || l == nil || l.Owner != "new" {
		t.Errorf("lease of c1 after the refused writes: %+v, %v", l, err)
	}
	if l, err := s.Lease(ctx, "c2"); err != nil || l != nil {
		t.Errorf("lease of c2 after the refused insert: %+v, %v", l, err)
	}
}
