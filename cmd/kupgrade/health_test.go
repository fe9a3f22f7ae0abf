package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A check overridden by name is recorded on the upgrade it let start; an unknown name is bad
// input before anything is opened; where the checks cannot run (no admin.conf on
// the simulated controllers) they warn in one line and do not stop the start.
func TestHealthSkipRecorded(t *testing.T) {
	f := startFleet(t, 1, func(int) bool { return false })
	file := filepath.Join(t.TempDir(), "k.db")
	base := []string{"--db", "sqlite:" + file, "-i", filepath.Join(f.Inventories, f.Clusters[0].Name+".yml")}
	run := func(args ...string) (int, string, string) { return kupgrade(t, append(base, args...)...) }

	code, _, errs := run("upgrade", "start", "v1.30.1", "--skip-check", "certs")
	if code != exitBadInput || !strings.Contains(errs, `--skip-check "certs": no such check`) || !strings.Contains(errs, "certificates") {
		t.Errorf("an unknown check name: exit %d, want %d naming the checks:\n%s", code, exitBadInput, errs)
	}
	if code, _, errs := run("upgrade", "start", "v1.30.1", "--skip-check", "nodes-redy"); code != exitBadInput || !strings.Contains(errs, "(did you mean nodes-ready?)") {
		t.Errorf("a mistyped check name: exit %d, want %d suggesting nodes-ready:\n%s", code, exitBadInput, errs)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("an unknown check name created the database")
	}
	code, out, errs := run("upgrade", "start", "v1.30.1", "--skip-check", "drain", "--skip-check", "etcd")
	if code != 0 {
		t.Fatalf("upgrade start --skip-check drain: exit %d\n%s%s", code, out, errs)
	}
	if n := strings.Count(errs, "health: warn"); n != 1 || !strings.Contains(errs, "not run on the controller: /etc/kubernetes/admin.conf: not found") ||
		!strings.Contains(errs, "health: skipped etcd, drain: skipped by --skip-check") {
		t.Errorf("checks that cannot run on the simulated controllers: %d warning lines, want one saying why:\n%s", n, errs)
	}
	_, out, _ = run("upgrade", "history")
	if !strings.Contains(out, "health checks skipped by --skip-check: drain, etcd") {
		t.Errorf("upgrade history does not record the skipped checks:\n%s", out)
	}
}
