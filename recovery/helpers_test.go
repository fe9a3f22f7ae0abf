package recovery_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// clock is the store's fake clock. It starts at the wall clock so that an operator's hand edit
// (datetime('now', ...)) means what it says, and reads in time.Local to exercise the store's UTC
// conversion.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t.In(time.Local)
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	st   *sqlite.Store
	clk  *clock
	path string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{clk: &clock{t: time.Now()}, path: filepath.Join(t.TempDir(), "kupgrade.db")}
	st, err := sqlite.Open(t.Context(), f.path, state.WithClock(f.clk.Now))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	f.st = st
	return f
}

// start creates cluster's upgrade with two controllers and a worker.
func (f *fixture) start(t *testing.T, cluster string) {
	t.Helper()
	_, err := f.st.CreateUpgrade(t.Context(), state.NewUpgrade{Cluster: cluster, FromVersion: "v1.29.3", ToVersion: "v1.30.1",
		Actor: state.ActorCLI, Reason: "test", Hosts: []state.NewHost{
			{Hostname: "controller-1", Personality: state.Controller},
			{Hostname: "controller-2", Personality: state.Controller},
			{Hostname: "worker-1", Personality: state.Worker},
		}})
	if err != nil {
		t.Fatalf("create upgrade: %v", err)
	}
}

// move puts cluster in state s from whatever it is, with host (if any) set to status, and gives
// the cluster a lease of owner with ttl when owner is not "" (a negative ttl gives an expired
// lease). It is an operator's hand edit: the combinations the tests need (a host status left
// behind by a failed state, a runner that died in flight) are ones no legal change leaves.
func (f *fixture) move(t *testing.T, cluster string, s state.State, host string, status state.HostStatus, owner string, ttl time.Duration) {
	t.Helper()
	const layout = "2006-01-02 15:04:05.000000"
	now := f.clk.Now().UTC()
	f.sql(t, "UPDATE kube_upgrade SET state = ?, state_entered_at = ?, updated_at = ? WHERE cluster = ?",
		string(s), now.Format(layout), now.Format(layout), cluster)
	if host != "" {
		var st any // idle is NULL
		if status != state.HostIdle {
			st = string(status)
		}
		f.sql(t, "UPDATE kube_host_upgrade SET status = ?, updated_at = ? WHERE host_id = (SELECT id FROM host WHERE cluster = ? AND hostname = ?)",
			st, now.Format(layout), cluster, host)
	}
	if owner != "" {
		f.sql(t, "UPDATE kube_upgrade SET lease_generation = lease_generation + 1 WHERE cluster = ?", cluster)
		f.sql(t, `INSERT OR REPLACE INTO upgrade_lease (cluster, owner, operation, generation, acquired_at, heartbeat_at, expires_at)
			SELECT cluster, ?, ?, lease_generation, ?, ?, ? FROM kube_upgrade WHERE cluster = ?`,
			owner, "control-plane@"+host, now.Format(layout), now.Format(layout), now.Add(ttl).Format(layout), cluster)
	}
}

// sql runs an operator's hand edit on the database file.
func (f *fixture) sql(t *testing.T, stmt string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", f.path)
	if err != nil {
		t.Fatalf("open db: %v", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), stmt, args...); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

func (f *fixture) upgrade(t *testing.T, cluster string) state.Upgrade {
	t.Helper()
	u, err := f.st.Upgrade(t.Context(), cluster)
	if err != nil {
		t.Fatalf("read upgrade: %v", err)
	}
	return u
}

func (f *fixture) status(t *testing.T, cluster, host string) state.HostStatus {
	t.Helper()
	hs, err := f.st.Hosts(t.Context(), cluster)
	if err != nil {
		t.Fatalf("read hosts: %v", err)
	}
	for _, h := range hs {
		if h.Hostname == host {
			return h.Status
		}
	}
	t.Fatalf("no host %s", host)
	return ""
}

func (f *fixture) lease(t *testing.T, cluster string) *state.Lease {
	t.Helper()
	l, err := f.st.Lease(t.Context(), cluster)
	if err != nil {
		t.Fatalf("read lease: %v", err)
	}
	return l
}

func (f *fixture) events(t *testing.T, cluster string) []state.Event {
	t.Helper()
	evs, err := f.st.Events(t.Context(), cluster, 1000)
	if err != nil {
		t.Fatalf("read events: %v", err)
	}
	return evs
}

// evidence decodes the evidence of the newest event.
func (f *fixture) evidence(t *testing.T, cluster string) recovery.Evidence {
	t.Helper()
	evs := f.events(t, cluster)
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	var ev recovery.Evidence
	if err := json.Unmarshal(evs[0].Evidence, &ev); err != nil {
		t.Fatalf("decode evidence %s: %v", evs[0].Evidence, err)
	}
	return ev
}

// fakeProber answers from a table; hosts it does not know are unreachable.
type fakeProber struct {
	mu       sync.Mutex
	findings map[string]kubeadm.Finding
	calls    []string
}

type unreachableError struct{ host string }

func (e unreachableError) Error() string        { return "dial " + e.host + ": connection refused" }
func (e unreachableError) Is(target error) bool { return target == fault.ErrUnreachable }

func (p *fakeProber) Probe(ctx context.Context, host, target string) (kubeadm.Finding, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, host+"@"+target)
	if f, ok := p.findings[host]; ok {
		return f, nil
	}
	return kubeadm.Finding{}, unreachableError{host}
}

var lateFinding = kubeadm.Finding{Class: kubeadm.FindingConfigRewritten,
	Summary: "/var/lib/kubelet/config.yaml was rewritten after kubeadm's backup.",
	Next:    "retry the step: kubeadm skips manifests already at the target"}

func isConflict(err error) bool { return errors.Is(err, state.ErrConflict) }
