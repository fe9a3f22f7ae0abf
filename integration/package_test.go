//go:build integration

package integration_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/internal/pkgbuild"
)

// The .deb of `make package` on a lab node, as an operator meets it: copied in through
// `kupgrade-lab exec NODE sh -c 'cat > f' < file` (standard input passed as docker exec -i
// does), installed with dpkg, kupgrade-watch.service started from its own lines (unitService:
// the lab has no systemd), the status page reached with the token the package wrote and refused
// without it, then the package removed and purged with the database left in place.
func TestPackageInstallOnALabNode(t *testing.T) {
	t.Parallel()
	l := lab.Start(t, lab.Options{Controllers: 1})
	n := l.Node("controller-0")
	deb, commit := buildDeb(t)

	copyIn := exec.Command(filepath.Join(binaries(t), "kupgrade-lab"), "--dir", filepath.Dir(l.Inventory()),
		"exec", n.Name, "--", "sh", "-c", "cat > /tmp/kupgrade.deb")
	f, err := os.Open(deb)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	copyIn.Stdin = f
	if out, err := copyIn.CombinedOutput(); err != nil {
		t.Fatalf("kupgrade-lab exec with the .deb on stdin: %v\n%s", err, out)
	}
	if got, want := strings.Fields(nodeExec(t, n, "sha256sum", "/tmp/kupgrade.deb"))[0], fileSum(t, deb); got != want {
		t.Fatalf("the .deb copied through kupgrade-lab exec's stdin has SHA-256 %s, want %s", got, want)
	}

	nodeExec(t, n, "dpkg", "-i", "/tmp/kupgrade.deb")
	if v := nodeExec(t, n, "kupgrade", "version"); !strings.Contains(v, "(commit "+commit+",") {
		t.Errorf("kupgrade version on the node: %q, want commit %s", v, commit)
	}
	if got := nodeExec(t, n, "stat", "-c", "%a %U:%G", "/etc/kupgrade/watch.token"); got != "640 root:kupgrade\n" {
		t.Errorf("the token file is %q, want 640 root:kupgrade", got)
	}
	unit := parseUnit(t, pkgbuild.UnitPath, nodeExec(t, n, "cat", pkgbuild.UnitPath))
	pid := unit.start(t, n, "kupgrade-watch")
	addr := listenAddr(t, unit.environment(t, n))
	token := strings.TrimSpace(nodeExec(t, n, "cat", "/etc/kupgrade/watch.token"))
	waitPage(t, n, addr, "/healthz", "", "200 OK")
	if got := get(t, n, addr, "/", ""); !strings.Contains(got, " 401 ") {
		t.Errorf("the status page without the token: %.200q, want 401", got)
	}
	if got := get(t, n, addr, "/", token); !strings.Contains(got, " 200 OK") || !strings.Contains(got, "<title>kupgrade watch</title>") {
		t.Errorf("the status page with the token: %.300q", got)
	}
	if got := nodeExec(t, n, "stat", "-c", "%a %U:%G", "/var/lib/kupgrade", "/var/lib/kupgrade/kupgrade.db"); got != "700 kupgrade:kupgrade\n600 kupgrade:kupgrade\n" {
		t.Errorf("the state folder and database are %q, want 700 and 600, kupgrade's", got)
	}

	nodeExec(t, n, "kill", pid)
	nodeExec(t, n, "dpkg", "-r", "kupgrade")
	nodeExec(t, n, "sh", "-c", "! command -v kupgrade && test -s /var/lib/kupgrade/kupgrade.db && test -f /etc/kupgrade/watch.env")
	nodeExec(t, n, "dpkg", "--purge", "kupgrade")
	nodeExec(t, n, "sh", "-c", "test -s /var/lib/kupgrade/kupgrade.db && test ! -e /etc/kupgrade/watch.env && test ! -e /etc/kupgrade/watch.token")
}

// buildDeb packages the kupgrade of binaries (its commit stamped as `make build` does) into a
// .deb, and returns it and the commit.
func buildDeb(t *testing.T) (deb, commit string) {
	t.Helper()
	commit = headCommit()
	paths, err := pkgbuild.Build(pkgbuild.Options{Root: "..", Bin: filepath.Join(binaries(t), "kupgrade"), Version: "v0.0.1",
		Commit: commit, Arch: runtime.GOARCH, Out: filepath.Join(t.TempDir(), "dist"), Formats: []string{"deb"}})
	if err != nil {
		t.Fatalf("build the .deb: %v", err)
	}
	return paths[0], commit
}

func fileSum(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// listenAddr is KUPGRADE_WATCH_LISTEN of the service's environment (its last setting wins).
func listenAddr(t *testing.T, env []string) string {
	addr := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "KUPGRADE_WATCH_LISTEN="); ok {
			addr = v
		}
	}
	if addr == "" {
		t.Fatalf("the service's environment sets no KUPGRADE_WATCH_LISTEN: %v", env)
	}
	return addr
}

// get fetches path from addr on the node itself (bash's /dev/tcp: the lab has no curl), with
// the token when there is one, and returns the response.
func get(t *testing.T, n *lab.Node, addr, path, token string) string {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	script := `exec 3<>"/dev/tcp/$0/$1" && printf 'GET %s HTTP/1.0\r\n%s\r\n' "$2" "$3" >&3 && cat <&3`
	out, _ := n.Exec(t.Context(), "bash", "-c", script, host, port, path, auth)
	return out
}

// waitPage waits, a bounded number of tries, until path answers with want.
func waitPage(t *testing.T, n *lab.Node, addr, path, token, want string) {
	t.Helper()
	var got string
	for range 100 {
		if got = get(t, n, addr, path, token); strings.Contains(got, want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := n.Exec(t.Context(), "cat", "/var/log/kupgrade-lab/kupgrade-watch.log")
	t.Fatalf("%s on %s never answered %q: %.200q\nthe service's output:\n%s", path, addr, want, got, log)
}
