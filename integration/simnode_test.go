//go:build integration

package integration_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/internal/sim"
)

// startSimMySQL is a cluster of simulated nodes (internal/sim: 2 controllers and a worker at
// lab.DefaultVersion, in this process) whose state is in a MariaDB of the lab, which the test
// may stop: the faults of a database need a real database server, not real nodes.
func startSimMySQL(t *testing.T) (*labUnderTest, *lab.MariaDB, *sim.Cluster) {
	t.Helper()
	f, err := sim.Start(sim.Options{Clusters: 1, Controllers: 2, Workers: 1, From: lab.DefaultVersion, To: "v1.30.1", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	m := lab.StartMariaDB(t)
	inv := filepath.Join(f.Inventories, f.Clusters[0].Name+".yml")
	k := &kupgrade{bin: filepath.Join(binaries(t), "kupgrade"), env: append(os.Environ(), "KUPGRADE_INVENTORY="+inv,
		"HOME="+t.TempDir(), "KUPGRADE_LOG_DIR="+t.TempDir(),
		"KUPGRADE_DB=mysql://"+m.User+":"+m.Password+"@127.0.0.1:"+strconv.Itoa(m.Port)+"/kupgrade")}
	k.wantExit(t, 0, "recover") // migrates the empty schema; nothing stuck, nothing else written
	db, err := sql.Open("mysql", m.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &labUnderTest{k: k, db: db}, m, f.Clusters[0]
}

// simHost is host name of c.
func simHost(t *testing.T, c *sim.Cluster, name string) *sim.Host {
	t.Helper()
	for _, h := range c.Hosts {
		if h.Name == name {
			return h
		}
	}
	t.Fatalf("no host %s in %s", name, c.Name)
	return nil
}

// simFault arms f on h.
func simFault(t *testing.T, h *sim.Host, f sim.Fault) {
	t.Helper()
	if err := h.InjectFault(f); err != nil {
		t.Fatal(err)
	}
}

// waitForSimKubeadm waits until kubeadm runs on h (running) or no longer runs (!running).
func waitForSimKubeadm(t *testing.T, h *sim.Host, running bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for (h.RunningKubeadm() > 0) != running {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: kubeadm running = %v after a minute, want %v", h.Name, h.RunningKubeadm() > 0, running)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

var simImageTag = regexp.MustCompile(`image:\s*\S+:(v\S+)`)

// simManifestVersion is the kube-apiserver image tag on h.
func simManifestVersion(t *testing.T, h *sim.Host) string {
	t.Helper()
	m, _ := h.File("/etc/kubernetes/manifests/kube-apiserver.yaml")
	tag := simImageTag.FindStringSubmatch(m)
	if tag == nil {
		t.Fatalf("no image in kube-apiserver manifest on %s:\n%s", h.Name, m)
	}
	return tag[1]
}
