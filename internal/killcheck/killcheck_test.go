package killcheck_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/killcheck"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// openSchema is an empty kupgrade database with one upgrade of cluster c in state st, whose
// events are the given (from, to) state changes.
func openSchema(t *testing.T, st string, events ...[2]string) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "k.db")
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	exec(t, db, `INSERT INTO kube_upgrade (uuid, cluster, from_version, to_version, state, state_entered_at, created_at, updated_at)
		VALUES ('u1', 'c', 'v1.29.4', 'v1.30.1', ?, 'now', 'now', 'now')`, st)
	for _, e := range events {
		exec(t, db, `INSERT INTO kube_upgrade_event (cluster, upgrade_uuid, actor, from_state, to_state, reason, created_at)
			VALUES ('c', 'u1', 'test', ?, ?, 'test', 'now')`, e[0], e[1])
	}
	return db
}

func exec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// A kill that left an operation in flight with no lease, or a state its events do not lead to,
// is reported; a settled upgrade whose events chain is not.
func TestProblemsAfterAKill(t *testing.T) {
	settled := openSchema(t, "upgraded-first-master", [2]string{"upgrade-started", "upgrading-first-master"},
		[2]string{"upgrading-first-master", "upgraded-first-master"})
	if p, err := killcheck.Problems(t.Context(), settled); err != nil || len(p) != 0 {
		t.Errorf("a settled upgrade: problems %q (%v), want none", p, err)
	}
	orphan := openSchema(t, "upgrading-second-master", [2]string{"upgraded-first-master", "upgrading-second-master"})
	if p, _ := killcheck.Problems(t.Context(), orphan); len(p) != 1 || !strings.Contains(p[0], "no lease") {
		t.Errorf("in flight without a lease: problems %q, want the missing lease", p)
	}
	lost := openSchema(t, "upgraded-second-master", [2]string{"upgraded-first-master", "upgrading-second-master"})
	if p, _ := killcheck.Problems(t.Context(), lost); len(p) != 1 || !strings.Contains(p[0], "newest state change") {
		t.Errorf("a state written without its event: problems %q, want it named", p)
	}
}

// A state change that does not start where the previous one ended is a hole in the event log.
func TestEventHoles(t *testing.T) {
	db := openSchema(t, "upgraded-second-master", [2]string{"upgrade-started", "upgrading-first-master"},
		[2]string{"upgrading-second-master", "upgraded-second-master"})
	holes, err := killcheck.EventHoles(t.Context(), db)
	if err != nil || len(holes) != 1 || !strings.Contains(holes[0], "previous change ended in upgrading-first-master") {
		t.Errorf("holes %q (%v), want the one after upgrading-first-master", holes, err)
	}
}
