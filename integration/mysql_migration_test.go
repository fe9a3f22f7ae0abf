//go:build integration

package integration_test

import (
	"context"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// MySQL commits DDL statement by statement, so a migration cut short (a crash, a lost
// connection) runs again from its first statement: 0008, which moves the lease to upgrade_lease
// and leaves kube_upgrade_lease a view, runs again without error and loses no lease.
func TestMySQLLeaseMigrationRunsAgain(t *testing.T) {
	t.Parallel()
	b := mysqlBackend(t, mariaDSN(t))
	ctx := context.Background()
	s := b.Open(t)
	nu := state.NewUpgrade{Cluster: "c1", FromVersion: "v1.29.4", ToVersion: "v1.30.2", Actor: state.ActorCLI, Reason: "test",
		Hosts: []state.NewHost{{Hostname: "controller-0", Personality: state.Controller}}}
	if _, err := s.CreateUpgrade(ctx, nu); err != nil {
		t.Fatal(err)
	}
	lease := state.LeaseSpec{Owner: "runner-a", Operation: "download-images", TTL: time.Hour}
	if _, err := s.Apply(ctx, state.Start("c1", state.ActorRunner, state.UpgradeStarted, state.DownloadingImages, lease)); err != nil {
		t.Fatal(err)
	}
	b.Exec(t, "DELETE FROM schema_migrations WHERE version = 8")
	again := b.Open(t) // runs 0008 again
	if l, err := again.Lease(ctx, "c1"); err != nil || l == nil || l.Owner != "runner-a" {
		t.Fatalf("lease after 0008 ran again: %+v, %v", l, err)
	}
	if _, err := b.DB.ExecContext(ctx, "UPDATE kube_upgrade_lease SET owner = 'old' WHERE cluster = 'c1'"); err == nil {
		t.Error("kube_upgrade_lease took a write after 0008 ran again")
	}
}
