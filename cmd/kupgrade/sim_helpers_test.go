package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/sim"
)

// simLab is a scenario's simulated world: clusters of in-process nodes (internal/sim), one
// SQLite database, and kupgrade run as its own process (this test binary, as the scripts run
// it) on a cluster's inventory. It starts in milliseconds; a scenario is a few calls of want.
type simLab struct {
	f      *sim.Fleet
	env    []string
	db     *sql.DB // the database, read-only, as an operator's sqlite3
	dbPath string
}

// startSim starts o's clusters (default: one cluster of 2 controllers and a worker at v1.29.4,
// whose kubeadm is v1.30.1's) and points kupgrade at a new database in t's temporary folder.
func startSim(t *testing.T, o sim.Options) *simLab {
	t.Helper()
	if o.Controllers == 0 {
		o.Controllers = 2
	}
	o.Clusters, o.Workers = max(o.Clusters, 1), max(o.Workers, 1)
	if o.From == "" {
		o.From, o.To = "v1.29.4", "v1.30.1"
	}
	o.Dir = t.TempDir()
	f, err := sim.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	dbPath := filepath.Join(o.Dir, "kupgrade.db")
	l := &simLab{f: f, dbPath: dbPath, env: append(os.Environ(), "KUPGRADE_DB=sqlite:"+dbPath, "HOME="+o.Dir,
		"KUPGRADE_LOG_DIR="+filepath.Join(o.Dir, "runs"))}
	if l.db, err = sql.Open("sqlite", dbPath+"?mode=ro&_pragma=busy_timeout(10000)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.db.Close() })
	return l
}

// cmd is kupgrade (this test binary) on cluster i's inventory.
func (c *simLab) cmd(ctx context.Context, i int, args ...string) *exec.Cmd {
	inv := filepath.Join(c.f.Inventories, c.f.Clusters[i].Name+".yml")
	cmd := exec.CommandContext(ctx, "kupgrade", append([]string{"-i", inv}, args...)...)
	cmd.Env = c.env
	return cmd
}

// want runs kupgrade on cluster i and fails the test unless it exits with code; it returns what
// kupgrade printed.
func (c *simLab) want(t *testing.T, i, code int, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := c.cmd(ctx, i, args...)
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	if ctx.Err() != nil || cmd.ProcessState.ExitCode() != code {
		t.Fatalf("kupgrade %s on %s exited %d, want %d:\n%s", strings.Join(args, " "), c.f.Clusters[i].Name,
			cmd.ProcessState.ExitCode(), code, out.String())
	}
	return out.String()
}

// host is host name of cluster i.
func (c *simLab) host(i int, name string) *sim.Host {
	for _, h := range c.f.Clusters[i].Hosts {
		if h.Name == name {
			return h
		}
	}
	panic("no host " + name)
}

// state is the state of cluster i's upgrade, as the database holds it.
func (c *simLab) state(t *testing.T, i int) string {
	t.Helper()
	var st string
	if err := c.db.QueryRowContext(t.Context(), "SELECT state FROM kube_upgrade WHERE cluster = ?", c.f.Clusters[i].Name).Scan(&st); err != nil {
		t.Fatalf("read the state of %s: %v", c.f.Clusters[i].Name, err)
	}
	return st
}

func (c *simLab) count(t *testing.T, query string) int {
	t.Helper()
	var n int
	if err := c.db.QueryRowContext(t.Context(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// requireAt checks cluster i on its nodes: every kubelet runs version, every controller's
// manifests are at it, no host ever ran two kubeadm at once.
func (c *simLab) requireAt(t *testing.T, i int, version string) {
	t.Helper()
	for _, h := range c.f.Clusters[i].Hosts {
		where := c.f.Clusters[i].Name + "/" + h.Name
		if v, _ := h.File("/var/lib/kupgrade-lab/kubelet-running"); strings.TrimSpace(v) != version {
			t.Errorf("%s: kubelet runs %q, want %s", where, v, version)
		}
		if m, _ := h.File("/etc/kubernetes/manifests/kube-apiserver.yaml"); h.Controller && !strings.Contains(m, ":"+version) {
			t.Errorf("%s: kube-apiserver's manifest is not at %s:\n%s", where, version, m)
		}
		if n := h.MaxConcurrentKubeadm(); n > 1 {
			t.Errorf("%s ran %d kubeadm at once, want at most 1", where, n)
		}
	}
}
