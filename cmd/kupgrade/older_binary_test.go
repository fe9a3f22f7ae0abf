package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// leaseMigration is the migration that makes an older kupgrade fail on today's schema.
const leaseMigration = "state/sqlite/migrations/0008_upgrade_lease.sql"

// TestOlderBinaryFailsLoudlyOnNewerSchema builds the kupgrade of the commit before the lease
// migration and runs it on a database this kupgrade created: where it would take a lease (and,
// for a step, go on to run kubeadm unfenced), it stops with a message saying it is too old, and
// writes nothing. On a database it created itself, the same command succeeds.
func TestOlderBinaryFailsLoudlyOnNewerSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an older kupgrade")
	}
	old := buildOlder(t, leaseMigration)
	dir := t.TempDir()
	inv := filepath.Join(dir, "inventory.yml")
	srv := sshtest.NewServer(t)
	if err := os.WriteFile(inv, []byte(olderInventory(srv)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The older binary on its own database: it starts and aborts.
	own := "sqlite:" + filepath.Join(dir, "old.db")
	runOlder(t, old, 0, "--db", own, "-i", inv, "--known-hosts", srv.KnownHosts, "upgrade", "start", "v1.30.1", "--from-version", "v1.29.4")
	runOlder(t, old, 0, "--db", own, "-i", inv, "--known-hosts", srv.KnownHosts, "upgrade", "abort")

	today := "sqlite:" + filepath.Join(dir, "new.db")
	var out, errb bytes.Buffer
	// The test server is no cluster: its health checks cannot run, and are skipped by name.
	start := append([]string{"--db", today, "-i", inv, "upgrade", "start", "v1.30.1", "--from-version", "v1.29.4"}, skipEveryCheck()...)
	if code := Main(start, nil, &out, &errb); code != 0 {
		t.Fatalf("upgrade start (this kupgrade): exit %d: %s", code, errb.String())
	}
	msg := runOlder(t, old, -1, "--db", today, "-i", inv, "--known-hosts", srv.KnownHosts, "upgrade", "abort")
	t.Logf("the older kupgrade refused: %s", msg)
	if !strings.Contains(msg, "kube_upgrade_lease is read-only") || !strings.Contains(msg, "too old") {
		t.Errorf("the older kupgrade's refusal does not say why:\n%s", msg)
	}
	out.Reset()
	if code := Main([]string{"--db", today, "-i", inv, "upgrade", "show"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "upgrade-started") {
		t.Errorf("after the older kupgrade: exit %d, want the upgrade still upgrade-started:\n%s", code, out.String())
	}
}

// runOlder runs the older binary and checks its exit status (-1: any failure); it returns stderr.
func runOlder(t *testing.T, bin string, want int, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if (want < 0 && code == 0) || (want >= 0 && code != want) {
		t.Fatalf("older kupgrade %s: exit %d, want %d:\n%s", strings.Join(args, " "), code, want, errb.String())
	}
	return errb.String()
}

// buildOlder builds cmd/kupgrade from the commit before the one that added migration (or from
// HEAD while that migration is not committed yet); it skips without git history.
func buildOlder(t *testing.T, migration string) string {
	t.Helper()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("no git history: %v", err)
	}
	root := strings.TrimSpace(string(top))
	base := "HEAD"
	if added, _ := exec.Command("git", "-C", root, "log", "-1", "--format=%H", "--diff-filter=A", "--", migration).Output(); len(bytes.TrimSpace(added)) > 0 {
		base = strings.TrimSpace(string(added)) + "^"
	}
	if exec.Command("git", "-C", root, "cat-file", "-e", base+":"+migration).Run() == nil {
		t.Skipf("no commit before %s in the history", migration)
	}
	if exec.Command("git", "-C", root, "cat-file", "-e", base+":cmd/kupgrade").Run() != nil {
		t.Skipf("commit %s has no cmd/kupgrade (shallow or unrelated history)", base)
	}
	src := t.TempDir()
	tarball := filepath.Join(src, "src.tar")
	if out, err := exec.Command("git", "-C", root, "archive", "-o", tarball, base).CombinedOutput(); err != nil {
		t.Skipf("git archive %s: %v: %s", base, err, out)
	}
	if out, err := exec.Command("tar", "-xf", tarball, "-C", src).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v: %s", err, out)
	}
	bin := filepath.Join(src, "kupgrade-old")
	build := exec.Command("go", "build", "-o", bin, "./cmd/kupgrade")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the older kupgrade (%s): %v: %s", base, err, out)
	}
	return bin
}

// olderInventory's one controller is this machine, through an SSH server on 127.0.0.1: abort
// probes its manifests (none here, so nothing to restore) before it takes the lease.
func olderInventory(srv *sshtest.Server) string {
	return fmt.Sprintf(`all:
  children:
    controllers:
      hosts:
        controller-0: {ansible_host: 127.0.0.1, ansible_port: %d, ansible_user: %s, ansible_ssh_private_key_file: %s}
`, srv.Port, srv.User, srv.KeyFile)
}
