package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// BenchmarkTransition measures one Apply: a state change with a host status compare-and-set
// and an event row, alternating between an in-flight state and its failed twin.
func BenchmarkTransition(b *testing.B, be Backend) {
	s := be.Open(b)
	create(b, s, "bench")
	walk(b, s, "bench", state.UpgradingFirstMaster)
	ctx := context.Background()
	const fm, failed, cp = state.UpgradingFirstMaster, state.UpgradingFirstMasterFailed, state.UpgradingControlPlane
	lease, why := state.LeaseSpec{Owner: walker, Operation: "bench", TTL: time.Hour}, state.Because("bench")
	steps := [2]state.Change{
		state.Fail("bench", state.ActorRunner, fm, failed, state.HeldBy(walker), why, state.OnHost("controller-0", cp, state.HostIdle)),
		state.Start("bench", state.ActorRunner, failed, fm, lease, why, state.OnHost("controller-0", state.HostIdle, cp)),
	}
	if _, err := s.Apply(ctx, state.HostOnly("bench", state.ActorRunner, fm, state.HeldBy(walker),
		state.OnHost("controller-0", state.HostIdle, cp))); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Apply(ctx, steps[i%2]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkInFlight measures one InFlight call (the audit's read) over n clusters of four
// hosts: a third in flight with a lease, a third upgrading kubelets with one host at work, a
// third idle between steps.
func BenchmarkInFlight(b *testing.B, be Backend, n int) {
	s := be.Open(b)
	seedClusters(b, be, n)
	ctx := context.Background()
	want := n - n/3
	b.ReportAllocs()
	for b.Loop() {
		ops, bad, err := s.InFlight(ctx)
		if err != nil || len(bad) != 0 {
			b.Fatal(bad, err)
		}
		if len(ops) != want {
			b.Fatalf("InFlight = %d ops, want %d", len(ops), want)
		}
	}
}

// seedClusters writes n clusters with raw multi-row INSERTs in one transaction: going through
// CreateUpgrade would measure the seeding, not the audit.
func seedClusters(b *testing.B, be Backend, n int) {
	b.Helper()
	ctx := context.Background()
	tx, err := be.DB.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit this is a no-op
	now := time.Now().UTC().Format("2006-01-02 15:04:05.000000")
	insert := func(table, cols string, rows [][]any) {
		const batch = 500
		for lo := 0; lo < len(rows); lo += batch {
			hi := min(lo+batch, len(rows))
			ph := "(" + strings.TrimSuffix(strings.Repeat("?,", len(rows[0])), ",") + ")"
			var args []any
			for _, r := range rows[lo:hi] {
				args = append(args, r...)
			}
			q := "INSERT INTO " + table + " (" + cols + ") VALUES " + strings.TrimSuffix(strings.Repeat(ph+",", hi-lo), ",")
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				b.Fatalf("seed %s: %v", table, err)
			}
		}
	}
	var ups, leases, hosts, hus [][]any
	for i := range n {
		cluster := fmt.Sprintf("cluster-%05d", i)
		st := []state.State{state.UpgradingSecondMaster, state.UpgradingKubelets, state.UpgradedNetworking}[i%3]
		ups = append(ups, []any{"u-" + cluster, cluster, "v1.29.4", "v1.30.2", string(st), now, now, now})
		if i%3 == 0 {
			leases = append(leases, []any{cluster, "owner", "control-plane@controller-1", now, now, now})
		}
		for h := range 4 {
			id := i*4 + h + 1
			hosts = append(hosts, []any{id, cluster, fmt.Sprintf("host-%d", h), state.Controller})
			var st any
			if h == 1 && i%3 < 2 {
				st = []string{string(state.UpgradingControlPlane), string(state.UpgradingKubelet)}[i%3]
			}
			hus = append(hus, []any{fmt.Sprintf("hu-%d", id), id, "v1.30.2", st, now, now})
		}
	}
	insert("kube_upgrade", "uuid, cluster, from_version, to_version, state, state_entered_at, created_at, updated_at", ups)
	insert("upgrade_lease", "cluster, owner, operation, acquired_at, heartbeat_at, expires_at", leases)
	insert("host", "id, cluster, hostname, personality", hosts)
	insert("kube_host_upgrade", "uuid, host_id, target_version, status, created_at, updated_at", hus)
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
