package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// phasesMigration is the migration that came with the kubelet step's host phases
// (draining-node, uncordoning-node and their failed twins).
const phasesMigration = "state/sqlite/migrations/0012_host_phases.sql"

// TestOlderBinaryRefusesHostPhases builds the kupgrade of the commit before the host phases and
// runs it on a database this kupgrade wrote, with a host left draining-node-failed: an older
// kupgrade would take that host for idle (and one left draining-node for nothing in flight), so
// it refuses the database, naming the migration it does not know, and writes nothing.
func TestOlderBinaryRefusesHostPhases(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an older kupgrade")
	}
	old := buildOlder(t, phasesMigration)
	dir := t.TempDir()
	inv := filepath.Join(dir, "inventory.yml")
	srv := sshtest.NewServer(t)
	if err := os.WriteFile(inv, []byte(olderInventory(srv)), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "new.db")
	var out, errb bytes.Buffer
	// The test server is no cluster: its health checks cannot run, and are skipped by name.
	start := append([]string{"--db", "sqlite:" + file, "-i", inv, "upgrade", "start", "v1.30.1", "--from-version", "v1.29.4"}, skipEveryCheck()...)
	if code := Main(start, nil, &out, &errb); code != 0 {
		t.Fatalf("upgrade start (this kupgrade): exit %d: %s", code, errb.String())
	}
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE kube_host_upgrade SET status = 'draining-node-failed'`); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"host", "list"}, {"recover"}, {"upgrade", "abort"}} {
		msg := runOlder(t, old, -1, append([]string{"--db", "sqlite:" + file, "-i", inv, "--known-hosts", srv.KnownHosts}, args...)...)
		if !strings.Contains(msg, "0012_host_phases.sql") || !strings.Contains(msg, "does not know") {
			t.Errorf("the older kupgrade's %s does not say why it refuses:\n%s", strings.Join(args, " "), msg)
		}
	}
	out.Reset()
	if code := Main([]string{"--db", "sqlite:" + file, "-i", inv, "host", "list"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "draining-node-failed") {
		t.Errorf("after the older kupgrade: exit %d, want controller-0 still draining-node-failed:\n%s", code, out.String())
	}
}
