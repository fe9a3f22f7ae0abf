package storetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// Backend is one fresh, empty database for a test.
type Backend struct {
	// Open opens a new Store instance on the database (own connections), closed at the end
	// of tb. Several calls give several instances on the same database.
	Open func(tb testing.TB, opts ...state.Option) state.Store
	// DB is raw access to the same database, for hand edits and checks of what is stored.
	DB *sql.DB
	// Dialect is "sqlite" or "mysql": which SQL a hand edit uses.
	Dialect string
}

// HoursAgo is the SQL expression an operator would type for "n hours ago" (docs/states.md "Tables").
func (b Backend) HoursAgo(n int) string {
	if b.Dialect == "mysql" {
		return fmt.Sprintf("UTC_TIMESTAMP(6) - INTERVAL %d HOUR", n)
	}
	return fmt.Sprintf("datetime('now', '-%d hours')", n)
}

// Exec runs a hand edit.
func (b Backend) Exec(tb testing.TB, query string, args ...any) {
	tb.Helper()
	if _, err := b.DB.ExecContext(context.Background(), query, args...); err != nil {
		tb.Fatalf("hand edit %q: %v", query, err)
	}
}

// Run runs the whole suite; fresh returns an empty database for each test.
func Run(t *testing.T, fresh func(t *testing.T) Backend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, b Backend)
	}{
		{"CreateRefusesSecond", testCreate},
		{"EveryStep", testEveryStep},
		{"ConflictWritesNothing", testConflictWritesNothing},
		{"HostStatusCAS", testHostStatusCAS},
		{"Leases", testLeases},
		{"LeaseGenerations", testGenerations},
		{"LeasesOnTheDatabaseClock", testDatabaseClock},
		{"NoTakeoverWhileAnotherHostInFlight", testNoTakeoverWhileInFlight},
		{"MachinesWithSkewedClocks", testSkewedMachines},
		{"RandomSequencesKeepTheInvariants", testRandomSequences},
		{"InFlight", testInFlight},
		{"BadRowsHideNoCluster", testBadRows},
		{"StateEnteredAtMovesOnlyOnStateChange", testStateEnteredAt},
		{"HandEditReadAsUTC", testHandEdit},
		{"FarZones", testFarZones},
		{"RaceOneWinner", testRace},
		{"DeleteUpgradeCAS", testDelete},
		{"EventsNewestFirst", testEvents},
		{"EventsNameTheirHop", testEventHops},
		{"AuditLockExclusive", testAuditLock},
		{"VersionsAndLastFailure", testVersions},
		{"OldLeaseNameRefusesWrites", testOldLeaseNameRefusesWrites},
		{"StoredTextValidAndBounded", testStoredText},
		{"EnteredReadsTheWholeHistory", testEntered},
		{"HandBacksCountedInTheRow", testHandBacks},
		{"BackupsRecordedOncePerUpgrade", testBackups},
		{"KubeletPhasesUnderTheLease", testKubeletPhases},
		{"PhaseInFlightForTheAudit", testPhaseInFlightForTheAudit},
		{"MarkComparesTheGeneration", testMarkComparesTheGeneration},
		{"FailBeforeTheStart", testFailBeforeTheStart},
		{"SnapshotsRecordedUnderTheStep", testSnapshots},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, fresh(t)) })
	}
}

// Clock is a settable clock for WithClock.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts a clock at a fixed UTC time with microseconds, as the store keeps them.
func NewClock() *Clock { return &Clock{now: time.Date(2025, 3, 14, 9, 26, 53, 589793000, time.UTC)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Add moves the clock forward.
func (c *Clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

// Hosts of a two-controller, two-worker cluster.
var twoControllers = []state.NewHost{
	{Hostname: "controller-0", Personality: state.Controller, ControlPlaneVersion: "v1.29.4", KubeletVersion: "v1.29.4"},
	{Hostname: "controller-1", Personality: state.Controller, ControlPlaneVersion: "v1.29.4", KubeletVersion: "v1.29.4"},
	{Hostname: "worker-0", Personality: state.Worker, KubeletVersion: "v1.29.4"},
	{Hostname: "worker-1", Personality: state.Worker},
}

// create starts an upgrade of cluster to v1.30.2 with the two-controller hosts.
func create(t testing.TB, s state.Store, cluster string) state.Upgrade {
	t.Helper()
	u, err := s.CreateUpgrade(context.Background(), state.NewUpgrade{Cluster: cluster, FromVersion: "v1.29.4",
		ToVersion: "v1.30.2", Hosts: twoControllers, Actor: state.ActorCLI, Reason: "upgrade start"})
	if err != nil {
		t.Fatalf("CreateUpgrade(%s): %v", cluster, err)
	}
	return u
}

// hopsTo is the upgrade createHops records: two hops, v1.30.2 then v1.31.2.
var hopsTo = []string{"v1.30.2", "v1.31.2"}

// createHops creates cluster's upgrade from v1.29.4 to v1.31.2 in two hops.
func createHops(t testing.TB, s state.Store, cluster string) state.Upgrade {
	t.Helper()
	u, err := s.CreateUpgrade(context.Background(), state.NewUpgrade{Cluster: cluster, FromVersion: "v1.29.4",
		ToVersion: hopsTo[1], Hops: hopsTo, Hosts: twoControllers, Actor: state.ActorCLI, Reason: "upgrade start"})
	if err != nil {
		t.Fatalf("CreateUpgrade(%s): %v", cluster, err)
	}
	return u
}

// walker is the owner of the leases walk takes.
const walker = "walker"

// walk takes cluster's upgrade from its state to the state to the way the workflow would, on the
// shortest path of the step table: each step started (taking walker's lease) and finished or
// failed (releasing it). A state that a step runs in (in flight) is left with walker's lease
// held; upgrading-kubelets, long-lived, with none. It returns the upgrade as last written.
func walk(t testing.TB, s state.Store, cluster string, to state.State) state.Upgrade {
	t.Helper()
	u := mustUpgrade(t, s, cluster)
	for _, c := range path(cluster, u.State, to) {
		var err error
		if u, err = s.Apply(context.Background(), c); err != nil {
			t.Fatalf("walk %s to %s: %s -> %s: %v", cluster, to, c.From(), c.To(), err)
		}
	}
	if u.State != to {
		t.Fatalf("walk %s: no path of the step table to %s", cluster, to)
	}
	return u
}

// path is the shortest list of changes from from to to (breadth first over the step table).
func path(cluster string, from, to state.State) []state.Change {
	prev := map[state.State][]state.Change{}
	seen := map[state.State]bool{from: true}
	for queue := []state.State{from}; len(queue) > 0 && !seen[to]; queue = queue[1:] {
		for _, edge := range edges(cluster, queue[0]) {
			if next := edge[0].To(); !seen[next] {
				seen[next], prev[next] = true, edge
				queue = append(queue, next)
			}
		}
	}
	var out []state.Change
	for s := to; s != from && seen[to]; s = prev[s][0].From() {
		out = append(slices.Clone(prev[s]), out...)
	}
	return out
}

// edges are the moves the step table allows from s, each the changes that make it: into a
// long-lived state (upgrading-kubelets), the lease is released again at once.
func edges(cluster string, s state.State) [][]state.Change {
	lease := state.LeaseSpec{Owner: walker, Operation: "walk", TTL: time.Minute}
	why := state.Because("walk")
	var out [][]state.Change
	for _, st := range state.Steps() {
		switch {
		case st.Name == state.StepNextHop: // back to upgrade-started, where every walk begins
		case st.Allows(s) && st.LongLived() && st.Running != s:
			out = append(out, []state.Change{state.Start(cluster, state.ActorRunner, s, st.Running, lease, why),
				state.Finish(cluster, state.ActorRunner, st.Running, st.Running, walker, state.ReleaseLease(), why)})
		case st.Allows(s) && !st.LongLived():
			out = append(out, []state.Change{state.Start(cluster, state.ActorRunner, s, st.Running, lease, why)})
		}
		if st.Running == s && !st.LongLived() {
			twin, _ := s.FailedTwin()
			out = append(out, []state.Change{state.Finish(cluster, state.ActorRunner, s, st.Done, walker, state.ReleaseLease(), why)},
				[]state.Change{state.Fail(cluster, state.ActorRunner, s, twin, state.HeldBy(walker), why)})
		}
	}
	return out
}

func mustUpgrade(t testing.TB, s state.Store, cluster string) state.Upgrade {
	t.Helper()
	u, err := s.Upgrade(context.Background(), cluster)
	if err != nil {
		t.Fatalf("Upgrade(%s): %v", cluster, err)
	}
	return u
}

func mustHost(t testing.TB, s state.Store, cluster, hostname string) state.Host {
	t.Helper()
	hs, err := s.Hosts(context.Background(), cluster)
	if err != nil {
		t.Fatalf("Hosts(%s): %v", cluster, err)
	}
	for _, h := range hs {
		if h.Hostname == hostname {
			return h
		}
	}
	t.Fatalf("Hosts(%s): no %s in %v", cluster, hostname, hs)
	return state.Host{}
}

func countEvents(t testing.TB, s state.Store, cluster string) int {
	t.Helper()
	es, err := s.Events(context.Background(), cluster, 0)
	if err != nil {
		t.Fatalf("Events(%s): %v", cluster, err)
	}
	return len(es)
}

func wantErr(t testing.TB, what string, err, class error) {
	t.Helper()
	if !errors.Is(err, class) {
		t.Fatalf("%s: got error %v, want %v", what, err, class)
	}
}
