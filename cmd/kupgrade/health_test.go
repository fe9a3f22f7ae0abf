package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A check overridden by name is recorded on the upgrade it let start; an unknown name is bad
// input before anything is opened. Checks that cannot run fail closed (issue 35, S2): with
// admin.conf taken from the first controller, `upgrade start` refuses naming the file and starts
// nothing; skipping the checks that need it by name lets it start, recorded as an event. A
// second start is refused from the database before any check runs.
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
	f.Clusters[0].Hosts[0].RemoveFile("/etc/kubernetes/admin.conf")
	code, out, errs := run("upgrade", "start", "v1.30.1", "--skip-check", "drain", "--skip-check", "etcd")
	if code != exitRefused || !strings.Contains(errs, "cannot run: on the first controller: /etc/kubernetes/admin.conf: not found") ||
		!strings.Contains(errs, "health checks failed: nodes-ready, control-plane, kubelet-skew, removed-apis") {
		t.Errorf("checks that cannot run (no admin.conf): exit %d, want %d naming the file and the checks:\n%s%s", code, exitRefused, out, errs)
	}
	if code, _, errs := run("upgrade", "show"); code != exitRefused || !strings.Contains(errs, "no upgrade for cluster") {
		t.Errorf("a refused start left an upgrade: exit %d\n%s", code, errs)
	}
	skip := []string{"upgrade", "start", "v1.30.1"}
	for _, c := range []string{"nodes-ready", "control-plane", "kubelet-skew", "etcd", "removed-apis", "drain"} {
		skip = append(skip, "--skip-check", c)
	}
	if code, out, errs = run(skip...); code != 0 {
		t.Fatalf("upgrade start skipping every check that cannot run: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(errs, "health: fail") || !strings.Contains(errs, "skipped by --skip-check") {
		t.Errorf("the skipped checks are not said so, or a check failed:\n%s", errs)
	}
	// A second start is refused from the database at once: no host is asked, no check runs.
	if code, _, errs := run("upgrade", "start", "v1.30.1"); code != exitRefused || !strings.Contains(errs, "exists already") || strings.Contains(errs, "health:") {
		t.Errorf("a second start: exit %d, want %d from the database before any health check:\n%s", code, exitRefused, errs)
	}
	_, out, _ = run("upgrade", "history", "--wide")
	if !strings.Contains(out, "health checks skipped by --skip-check: nodes-ready, control-plane, kubelet-skew, etcd, removed-apis, drain") {
		t.Errorf("upgrade history does not record the skipped checks:\n%s", out)
	}
}
