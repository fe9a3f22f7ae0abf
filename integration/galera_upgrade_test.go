//go:build integration

package integration_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// A whole 2+1 upgrade with the state on Galera, kupgrade given all three nodes
// (mysql://u:p@n1,n2,n3/kupgrade): the node it writes through is killed while kubeadm runs on
// the second controller. The run fails over to the next node and finishes; the events, read on
// the third node, show every step entered and left once, nothing failed, nothing twice; and the
// killed node, started again, rejoins with the same history.
func TestGaleraUpgradeThroughNodeFailure(t *testing.T) {
	t.Parallel()
	lab.RequireGalera(t)
	g := lab.StartGalera(t)
	l := lab.Start(t, lab.Options{Controllers: 2, Workers: 1})
	k := buildKupgrade(t, l, "unused")
	// A short lease: renewals every 2 s, so some of them meet the dead node too.
	k.env = append(k.env, "KUPGRADE_DB="+g.URL(), "KUPGRADE_LEASE_TTL=6s")
	db := mysqlBackend(t, galeraDSN(g.Nodes[2])+"&wsrep_sync_wait=7").DB
	k.wantExit(t, 0, "upgrade", "start", "v1.30.1")
	c1 := l.Node("controller-1")
	injectFault(t, c1, lab.Fault{Phase: "control-plane", Action: lab.Delay, Seconds: 10, Once: true})
	_, wait := k.start(t, "upgrade", "run")
	waitForProcess(t, c1, "kubeadm upgrade")
	if err := g.Nodes[0].Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	code, out := wait()
	if code != 0 {
		t.Fatalf("upgrade run exited %d with a database node killed under it, want 0:\n%s", code, out)
	}
	if got := k.show(t).State; got != "upgrade-complete" {
		t.Fatalf("state %s after the run, want upgrade-complete:\n%s", got, out)
	}
	requireVersions(t, l, "v1.30.1")
	history := eventHistory(t, db)
	requireOnce(t, history)
	if err := g.Nodes[0].Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	rejoined, err := sql.Open("mysql", galeraDSN(g.Nodes[0])+"&wsrep_sync_wait=7")
	if err != nil {
		t.Fatal(err)
	}
	defer rejoined.Close()
	if again := eventHistory(t, rejoined); strings.Join(again, "\n") != strings.Join(history, "\n") {
		t.Fatalf("the restarted node has another history:\n%s\nwant\n%s", strings.Join(again, "\n"), strings.Join(history, "\n"))
	}
	t.Logf("%d events, the same on the node killed and restarted; kupgrade's log:\n%s", len(history), out)
}

// eventHistory is the event log as lines "from -> to host from_status -> to_status", oldest first.
func eventHistory(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT COALESCE(from_state, '-'), COALESCE(to_state, '-'), COALESCE(hostname, '-'),
		COALESCE(from_host_status, '-'), COALESCE(to_host_status, '-') FROM kube_upgrade_event ORDER BY id`)
	if err != nil {
		t.Fatalf("read events: %v", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var f, to, h, fh, th string
		if err := rows.Scan(&f, &to, &h, &fh, &th); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s -> %s %s %s -> %s", f, to, h, fh, th))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// requireOnce fails t if an event failed an operation or any change was recorded twice.
func requireOnce(t *testing.T, history []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range history {
		if strings.Contains(e, "-failed") {
			t.Errorf("an operation was failed: %s", e)
		}
		if seen[e] {
			t.Errorf("recorded twice: %s", e)
		}
		seen[e] = true
	}
	if t.Failed() {
		t.Fatalf("events:\n%s", strings.Join(history, "\n"))
	}
}
