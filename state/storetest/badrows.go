package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// Garble stores a value that is not a time in a time column of the rows matching where: an
// operator's hand edit gone wrong. SQLite keeps the text 'garbage'; MySQL, which refuses it in
// strict mode, is given it in a session without one and stores the zero date, which no reader
// can parse either.
func (b Backend) Garble(tb testing.TB, table, column, where string, args ...any) {
	tb.Helper()
	ctx := context.Background()
	conn, err := b.DB.Conn(ctx)
	if err != nil {
		tb.Fatalf("garble %s.%s: %v", table, column, err)
	}
	defer conn.Close()
	update := "UPDATE " + table + " SET " + column + " = 'garbage' WHERE " + where
	if b.Dialect != "mysql" {
		if _, err := conn.ExecContext(ctx, update, args...); err != nil {
			tb.Fatalf("%s: %v", update, err)
		}
		return
	}
	var mode string
	if err := conn.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode").Scan(&mode); err != nil {
		tb.Fatalf("read sql_mode: %v", err)
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = ''"); err != nil {
		tb.Fatalf("clear sql_mode: %v", err)
	}
	if _, err := conn.ExecContext(ctx, update, args...); err != nil {
		tb.Fatalf("%s: %v", update, err)
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = ?", mode); err != nil {
		tb.Fatalf("restore sql_mode: %v", err)
	}
}

// testBadRows: a hand edit gone wrong in some clusters (a lease that never expires readably, a
// state entered "yesterday", a state that is not a state, a host row's time) hides none of the
// others from InFlight or Upgrades, says which column of which cluster is bad, and leaves the
// bad clusters failable by a change that needs no lease judgement.
func testBadRows(t *testing.T, b Backend) {
	clock := NewClock()
	s := b.Open(t, state.WithClock(clock.Now))
	ctx := t.Context()
	seedBadRows(t, b, s)

	ops, bad, err := s.InFlight(ctx)
	if err != nil {
		t.Fatalf("InFlight with bad rows: %v", err)
	}
	if len(ops) != 2 || ops[0].Upgrade.Cluster != "a-good" || ops[1].Upgrade.Cluster != "f-good" ||
		ops[0].Lease == nil || !ops[0].Lease.Live(clock.Now()) {
		t.Fatalf("InFlight ops = %+v, want a-good (live lease) and f-good", ops)
	}
	want := []struct {
		cluster, table, column, host string
		state                        state.State
	}{
		{"b-lease", "upgrade_lease", "expires_at", "", state.DownloadingImages},
		{"c-entered", "kube_upgrade", "state_entered_at", "", state.DownloadingImages},
		{"d-state", "kube_upgrade", "state", "", "upgrading-frist-master"},
		{"e-host", "kube_host_upgrade", "updated_at", "worker-1", state.UpgradingKubelets},
	}
	if len(bad) != len(want) {
		t.Fatalf("InFlight bad = %+v, want %d clusters", bad, len(want))
	}
	for i, w := range want {
		res := state.RowErrors(bad[i].Err)
		if bad[i].Cluster != w.cluster || bad[i].State != w.state || !errors.Is(bad[i].Err, state.ErrBadRow) || len(res) != 1 ||
			res[0].Cluster != w.cluster || res[0].Table != w.table || res[0].Column != w.column || res[0].Host != w.host {
			t.Errorf("bad[%d] = %s in %s: %v; want %s.%s of %s (host %q) in %s", i, bad[i].Cluster, bad[i].State,
				bad[i].Err, w.table, w.column, w.cluster, w.host, w.state)
		}
	}
	checkBadReads(t, s)
	failBadRows(t, s)
}

// seedBadRows writes two good in-flight clusters and four bad ones.
func seedBadRows(t *testing.T, b Backend, s state.Store) {
	ctx := t.Context()
	for _, c := range []string{"a-good", "b-lease", "c-entered", "d-state", "e-host", "f-good"} {
		create(t, s, c)
	}
	walk(t, s, "a-good", state.UpgradedNetworking)
	lease := func(owner string) state.LeaseSpec {
		return state.LeaseSpec{Owner: owner, Operation: "op", TTL: time.Minute}
	}
	for _, c := range []state.Change{
		state.Start("a-good", state.ActorRunner, state.UpgradedNetworking, state.UpgradingFirstMaster, lease("o1"),
			state.OnHost("controller-0", state.HostIdle, state.UpgradingControlPlane)),
		state.Start("b-lease", state.ActorRunner, state.UpgradeStarted, state.DownloadingImages, lease("o2")),
	} {
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatalf("Apply(%s -> %s): %v", c.From(), c.To(), err)
		}
	}
	// In flight with nobody's lease: what a hand edit or an older tool leaves.
	b.Exec(t, "UPDATE kube_upgrade SET state = 'downloading-images' WHERE cluster = ?", "c-entered")
	b.Exec(t, "UPDATE kube_upgrade SET state = 'upgrading-kubelets' WHERE cluster = ?", "e-host")
	b.Exec(t, "UPDATE kube_host_upgrade SET status = 'upgrading-kubelet' WHERE host_id = (SELECT id FROM host WHERE cluster = ? AND hostname = ?)", "e-host", "worker-1")
	b.Exec(t, "UPDATE kube_upgrade SET state = 'pre-updating-apps' WHERE cluster = ?", "f-good")
	b.Garble(t, "upgrade_lease", "expires_at", "cluster = ?", "b-lease")
	b.Garble(t, "kube_upgrade", "state_entered_at", "cluster = ?", "c-entered")
	b.Exec(t, "UPDATE kube_upgrade SET state = 'upgrading-frist-master' WHERE cluster = ?", "d-state")
	b.Garble(t, "kube_host_upgrade", "updated_at", "host_id = (SELECT id FROM host WHERE cluster = ? AND hostname = ?)", "e-host", "worker-1")
}

// checkBadReads: the single reads return what they could read, and say what they could not.
func checkBadReads(t *testing.T, s state.Store) {
	ctx := t.Context()
	us, err := s.Upgrades(ctx)
	if len(us) != 6 || !errors.Is(err, state.ErrBadRow) || len(state.RowErrors(err)) != 1 || state.RowErrors(err)[0].Cluster != "c-entered" {
		t.Errorf("Upgrades = %d upgrades, %v; want all 6 and c-entered's state_entered_at named", len(us), err)
	}
	u, err := s.Upgrade(ctx, "c-entered")
	if !errors.Is(err, state.ErrBadRow) || u.State != state.DownloadingImages || !u.StateEnteredAt.IsZero() || u.UUID == "" {
		t.Errorf("Upgrade(c-entered) = %+v, %v; want the row with a zero state_entered_at and ErrBadRow", u, err)
	}
	l, err := s.Lease(ctx, "b-lease")
	if !errors.Is(err, state.ErrBadRow) || l == nil || l.Owner != "o2" {
		t.Errorf("Lease(b-lease) = %+v, %v; want o2's lease and ErrBadRow", l, err)
	}
	hs, err := s.Hosts(ctx, "e-host")
	if !errors.Is(err, state.ErrBadRow) || len(hs) != 4 {
		t.Errorf("Hosts(e-host) = %d hosts, %v; want all 4 and ErrBadRow", len(hs), err)
	}
}

// failBadRows: a change that needs the lease not to be live is refused on an unreadable lease;
// a forced fail (no lease condition) deletes it; a state change rewrites state_entered_at.
func failBadRows(t *testing.T, s state.Store) {
	ctx := t.Context()
	_, err := s.Apply(ctx, state.Fail("b-lease", state.ActorCLI, state.DownloadingImages, state.DownloadingImagesFailed, state.NotLive()))
	wantErr(t, "fail with an unreadable lease, no --force", err, state.ErrConflict)
	if _, err := s.Apply(ctx, state.Fail("b-lease", state.ActorCLI, state.DownloadingImages, state.DownloadingImagesFailed, state.Forced())); err != nil {
		t.Fatalf("forced fail with an unreadable lease: %v", err)
	}
	if l, err := s.Lease(ctx, "b-lease"); l != nil || err != nil {
		t.Fatalf("lease after the forced fail: %+v, %v; want none", l, err)
	}
	if _, err := s.Apply(ctx, state.Fail("c-entered", state.ActorCLI, state.DownloadingImages, state.DownloadingImagesFailed, state.NotLive())); err != nil {
		t.Fatalf("fail with an unreadable state_entered_at: %v", err)
	}
	if u, err := s.Upgrade(ctx, "c-entered"); err != nil || u.StateEnteredAt.IsZero() {
		t.Fatalf("after the fail: %+v, %v; want state_entered_at rewritten", u, err)
	}
	if _, bad, err := s.InFlight(ctx); err != nil || len(bad) != 2 {
		t.Fatalf("InFlight after failing two bad clusters: bad %+v, %v; want d-state and e-host", bad, err)
	}
}
