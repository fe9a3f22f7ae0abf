// Package recoverytest is the fixture the tests of recovery and watch share: a SQLite store on a
// fake clock, with an operator's hand edits.
package recoverytest

import (
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// Clock is the store's fake clock. It starts at the wall clock so that an operator's hand edit
// (datetime('now', ...)) means what it says, and reads in time.Local to exercise the store's UTC
// conversion.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t.In(time.Local)
}

func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// NewClock is a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Fixture is a fresh SQLite store at Path on the fake clock Clk.
type Fixture struct {
	St   *sqlite.Store
	Clk  *Clock
	Path string
}

// New opens a fresh store in a temporary folder.
func New(t *testing.T) *Fixture {
	t.Helper()
	f := &Fixture{Clk: NewClock(time.Now()), Path: filepath.Join(t.TempDir(), "kupgrade.db")}
	st, err := sqlite.Open(t.Context(), f.Path, state.WithClock(f.Clk.Now))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	f.St = st
	return f
}

// Start creates cluster's upgrade with two controllers and a worker.
func (f *Fixture) Start(t *testing.T, cluster string) {
	t.Helper()
	_, err := f.St.CreateUpgrade(t.Context(), state.NewUpgrade{Cluster: cluster, FromVersion: "v1.29.3", ToVersion: "v1.30.1",
		Actor: state.ActorCLI, Reason: "test", Hosts: []state.NewHost{
			{Hostname: "controller-1", Personality: state.Controller},
			{Hostname: "controller-2", Personality: state.Controller},
			{Hostname: "worker-1", Personality: state.Worker},
		}})
	if err != nil {
		t.Fatalf("create upgrade: %v", err)
	}
}

// Move puts cluster in state s from whatever it is, with host (if any) set to status, and gives
// the cluster a lease of owner with ttl when owner is not "" (a negative ttl gives an expired
// lease). It is an operator's hand edit: the combinations the tests need (a host status left
// behind by a failed state, a runner that died in flight) are ones no legal change leaves.
func (f *Fixture) Move(t *testing.T, cluster string, s state.State, host string, status state.HostStatus, owner string, ttl time.Duration) {
	t.Helper()
	const layout = "2006-01-02 15:04:05.000000"
	now := f.Clk.Now().UTC()
	f.SQL(t, "UPDATE kube_upgrade SET state = ?, state_entered_at = ?, updated_at = ? WHERE cluster = ?",
		string(s), now.Format(layout), now.Format(layout), cluster)
	if host != "" {
		var st any // idle is NULL
		if status != state.HostIdle {
			st = string(status)
		}
		f.SQL(t, "UPDATE kube_host_upgrade SET status = ?, updated_at = ? WHERE host_id = (SELECT id FROM host WHERE cluster = ? AND hostname = ?)",
			st, now.Format(layout), cluster, host)
	}
	if owner != "" {
		f.SQL(t, "UPDATE kube_upgrade SET lease_generation = lease_generation + 1 WHERE cluster = ?", cluster)
		f.SQL(t, `INSERT OR REPLACE INTO upgrade_lease (cluster, owner, operation, generation, acquired_at, heartbeat_at, expires_at)
			SELECT cluster, ?, ?, lease_generation, ?, ?, ? FROM kube_upgrade WHERE cluster = ?`,
			owner, "control-plane@"+host, now.Format(layout), now.Format(layout), now.Add(ttl).Format(layout), cluster)
	}
}

// SQL runs an operator's hand edit on the database file.
func (f *Fixture) SQL(t *testing.T, stmt string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", f.Path)
	if err != nil {
		t.Fatalf("open db: %v", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), stmt, args...); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}
