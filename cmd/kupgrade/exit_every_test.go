package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/health"
)

// heldLeaseArgs gives every leaf command of the grammar its arguments and the exit status it
// must give while another kupgrade holds a live lease on the cluster (upgrading-second-master,
// controller-1 in flight): 4 for every command that would change the upgrade, 0 for those that
// only read (-1: not run here, and why). A command missing here fails the test, so that a new
// command gets its status.
var heldLeaseArgs = map[string]struct {
	args string
	want int
}{
	"upgrade start":           {"v1.30.1 --from-version v1.29.4", exitRefused}, // an upgrade exists, whoever holds it
	"upgrade show":            {"", exitOK},
	"upgrade versions":        {"", exitUnreachable}, // reads the hosts, none reachable here
	"upgrade download-images": {"", exitConflict},
	"upgrade pre-app-update":  {"", exitConflict},
	"upgrade networking":      {"", exitConflict},
	"upgrade storage":         {"", exitConflict},
	"upgrade post-app-update": {"", exitConflict},
	"upgrade next-hop":        {"", exitConflict},
	"upgrade complete":        {"", exitConflict},
	"upgrade abort":           {"--yes", exitConflict},
	"upgrade delete":          {"-y", exitConflict},
	"upgrade failed":          {"", exitConflict},
	"upgrade run":             {"--yes", exitConflict},
	"upgrade plan":            {"--recorded", exitConflict},
	"upgrade list":            {"", exitOK},
	"upgrade history":         {"", exitOK},
	"upgrade logs":            {"", exitRefused}, // no run yet: no log (a read, never a conflict)
	"host list":               {"", exitOK},
	"host upgrade":            {"controller-1 kubelet", exitConflict},
	"host cordon":             {"controller-0", exitConflict},
	"host uncordon":           {"controller-0", exitConflict},
	"recover":                 {"", exitConflict},
	"watch":                   {"--once", exitOK},
	"fleet run":               {"", -1}, // waits a minute for a held cluster; fleet_fail_test.go checks its 1 and 2
	"fleet show":              {"", exitOK},
	"play":                    {"PLAYBOOK --check", exitUnreachable},
	"inventory list":          {"", exitOK},
	"version":                 {"", exitOK},
	"completion":              {"bash", exitOK},
	"man":                     {"", exitOK},
}

func TestExitStatusOfEveryCommandUnderAHeldLease(t *testing.T) {
	dir := t.TempDir()
	db, inv := heldLeaseCluster(t, dir)
	for _, n := range commands(grammar(t).Node, false) {
		if len(n.Children) > 0 {
			continue
		}
		c, ok := heldLeaseArgs[n.Path()]
		if !ok {
			t.Errorf("kupgrade %s has no exit status in heldLeaseArgs: give it one", n.Path())
			continue
		}
		if c.want < 0 {
			continue
		}
		args := strings.NewReplacer("PLAYBOOK", filepath.Join(dir, "play.yml")).Replace(c.args)
		argv := append([]string{"--db", db, "-i", inv}, strings.Fields(n.Path())...)
		code, out, errs := run(t, append(argv, strings.Fields(args)...)...)
		if code != c.want {
			t.Errorf("kupgrade %s %s under a held lease: exit %d, want %d\n%s%s", n.Path(), args, code, c.want, out, errs)
		}
	}
}

// heldLeaseCluster records an upgrade, hand-moves it into upgrading-second-master with
// controller-1 in flight, and has another kupgrade hold a live lease on it for an hour.
func heldLeaseCluster(t *testing.T, dir string) (db, inv string) {
	t.Helper()
	must(t, os.WriteFile(filepath.Join(dir, "play.yml"), []byte("- hosts: all\n  tasks:\n    - command: 'true'\n"), 0o644))
	db, inv, _ = handEdited(t, dir, "controller-0: {ansible_host: 127.0.0.1, ansible_port: 1}\n        controller-1: {ansible_host: 127.0.0.1, ansible_port: 1}",
		`UPDATE kube_upgrade SET state = 'upgrading-second-master'`,
		`UPDATE kube_host_upgrade SET status = 'upgrading-control-plane', target_version = 'v1.30.1' WHERE host_id = (SELECT id FROM host WHERE hostname = 'controller-1')`,
		`INSERT INTO upgrade_lease (cluster, owner, operation, acquired_at, heartbeat_at, expires_at) VALUES ('default', 'host-b:7:cd', 'control-plane@controller-1', datetime('now'), datetime('now'), datetime('now', '+1 hour'))`)
	return db, inv
}

// handEdited starts an upgrade to v1.30.1 of cluster default, whose controllers are hosts (YAML
// lines, none reachable: every health check is skipped by name, for none can run), in
// dir/inv/inventory.yml, then edits its rows by hand with queries.
func handEdited(t *testing.T, dir, hosts string, queries ...string) (db, inv, file string) {
	t.Helper()
	inv = filepath.Join(dir, "inv", "inventory.yml")
	must(t, os.MkdirAll(filepath.Dir(inv), 0o755))
	must(t, os.WriteFile(inv, []byte("all:\n  vars: {kupgrade_cluster: default}\n  children:\n    controllers:\n      hosts:\n        "+hosts+"\n"), 0o644))
	file = filepath.Join(dir, "k.db")
	db = "sqlite:" + file
	start := append([]string{"--db", db, "-i", inv, "upgrade", "start", "v1.30.1", "--from-version", "v1.29.4"}, skipEveryCheck()...)
	if code, out, errs := run(t, start...); code != 0 {
		t.Fatalf("upgrade start: exit %d\n%s%s", code, out, errs)
	}
	h, err := sql.Open("sqlite", file)
	must(t, err)
	defer h.Close()
	for _, q := range queries {
		_, err := h.Exec(q)
		must(t, err)
	}
	return db, inv, file
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// `upgrade show` of a cluster with no upgrade is refused (3, as the man page says); a host the
// inventory does not have is bad input (2) with the name it was probably meant to be.
func TestExitStatusOfNamesThatDoNotExist(t *testing.T) {
	dir := t.TempDir()
	db, inv := heldLeaseCluster(t, dir)
	if code, _, out := run(t, "--db", db, "--cluster", "other", "upgrade", "show"); code != exitRefused || !strings.Contains(out, "no upgrade for cluster \"other\"") {
		t.Errorf("upgrade show with no upgrade: exit %d, want %d\n%s", code, exitRefused, out)
	}
	code, _, errs := run(t, "--db", db, "-i", inv, "host", "upgrade", "controler-1", "kubelet")
	if code != exitBadInput || !strings.Contains(errs, `did you mean "controller-1"?`) {
		t.Errorf("host upgrade of a misspelt host: exit %d, want %d with did-you-mean\n%s", code, exitBadInput, errs)
	}
}

// skipEveryCheck are the flags that skip every health check by name, for a start on hosts that
// cannot be reached (where the checks cannot run, and so refuse).
func skipEveryCheck() []string {
	var out []string
	for _, c := range health.Names {
		out = append(out, "--skip-check", c)
	}
	return out
}
