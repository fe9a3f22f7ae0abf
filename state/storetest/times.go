package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// near fails unless got is within a minute of want: the hand edit and the read use two clocks
// (the server's and ours) a few milliseconds apart.
func near(t testing.TB, what string, got, want time.Duration) {
	t.Helper()
	if d := got - want; d < -time.Minute || d > time.Minute {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// rawTime reads a time column as the text the database holds.
func rawTime(t testing.TB, b Backend, query string, args ...any) string {
	t.Helper()
	var s string
	if err := b.DB.QueryRowContext(context.Background(), query, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return s
}

// testHandEdit is StarlingX's own test plan: put the state into flight by hand with SQL, two
// hours ago; the store must read it as UTC with an age of two hours.
func testHandEdit(t *testing.T, b Backend) {
	s := b.Open(t)
	create(t, s, "default")
	b.Exec(t, "UPDATE kube_upgrade SET state = 'upgrading-second-master', state_entered_at = "+b.HoursAgo(2)+" WHERE cluster = 'default'")
	u := mustUpgrade(t, s, "default")
	if u.State != state.UpgradingSecondMaster || u.StateEnteredAt.Location() != time.UTC {
		t.Fatalf("after the hand edit: %s entered at %v", u.State, u.StateEnteredAt)
	}
	near(t, "age of the hand-edited state", s.Now().Sub(u.StateEnteredAt), 2*time.Hour)
	ops, bad, err := s.InFlight(t.Context())
	if err != nil || len(bad) != 0 || len(ops) != 1 || ops[0].Lease != nil {
		t.Fatalf("InFlight after the hand edit: %+v, %v", ops, err)
	}
	twin, _ := u.State.FailedTwin()
	if _, err := s.Apply(t.Context(), state.Fail("default", state.ActorCLI, u.State, twin, state.NotLive())); err != nil {
		t.Fatalf("fail the hand-edited state: %v", err)
	}
}

// testFarZones runs the process in zones far from UTC (and, for MySQL, the caller's DSN sets a
// non-UTC session time_zone): what kupgrade writes is UTC text, and ages come out right.
func testFarZones(t *testing.T, b Backend) {
	saved := time.Local
	t.Cleanup(func() { time.Local = saved })
	for i, zone := range []*time.Location{time.FixedZone("UTC+14", 14*3600), time.FixedZone("UTC-11", -11*3600)} {
		time.Local = zone
		cluster := []string{"east", "west"}[i]
		local := time.Now().Truncate(time.Microsecond).In(zone) // a wall clock that reads in the far zone
		clock := &Clock{now: local}
		s := b.Open(t, state.WithClock(clock.Now))
		create(t, s, cluster)
		if _, err := s.Apply(t.Context(), state.Start(cluster, state.ActorRunner, state.UpgradeStarted, state.DownloadingImages,
			state.LeaseSpec{Owner: "o", Operation: "download-images", TTL: 30 * time.Second})); err != nil {
			t.Fatal(err)
		}
		want := local.UTC().Format("2006-01-02 15:04:05.000000")
		if got := rawTime(t, b, "SELECT state_entered_at FROM kube_upgrade WHERE cluster = ?", cluster); got != want {
			t.Fatalf("%s: stored state_entered_at %q, want UTC %q", zone, got, want)
		}
		l, err := s.Lease(t.Context(), cluster)
		if err != nil || l == nil || l.ExpiresAt.Sub(s.Now()) != 30*time.Second || !l.Live(time.Now()) {
			t.Fatalf("%s: lease %+v, %v: want live for 30s", zone, l, err)
		}
		b.Exec(t, "UPDATE kube_upgrade SET state_entered_at = "+b.HoursAgo(2)+" WHERE cluster = ?", cluster)
		real := b.Open(t) // the wall clock, read in the far zone
		near(t, zone.String()+": age of a hand edit", time.Since(mustUpgrade(t, real, cluster).StateEnteredAt), 2*time.Hour)
		near(t, zone.String()+": age with the store's clock", real.Now().Sub(mustUpgrade(t, real, cluster).StateEnteredAt), 2*time.Hour)
	}
}
