package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/fleet/fleettest"
)

// startFleet starts a simulated fleet of n clusters of 2 controllers and 1 worker.
func startFleet(t *testing.T, n int, late func(int) bool) *fleettest.Fleet {
	t.Helper()
	f, err := fleettest.Start(fleettest.Options{Clusters: n, Controllers: 2, Workers: 1, From: "v1.29.4", To: "v1.30.1", Dir: t.TempDir(), LateFailure: late})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func kupgrade(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, bytes.NewReader(nil), &out, &errb)
	return code, out.String(), errb.String()
}

func TestFleetRunSmall(t *testing.T) {
	f := startFleet(t, 3, nil)
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	code, out, errs := kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories)
	t.Logf("out:\n%s\nerr:\n%s", out, errs)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	_ = os.Stdout
}

func TestFleetDebugHistory(t *testing.T) {
	f := startFleet(t, 1, nil)
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	kupgrade(t, "--db", db, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories)
	_, out, _ := kupgrade(t, "--db", db, "--cluster", "c0000", "upgrade", "history")
	t.Log(out)
	_, out, _ = kupgrade(t, "--db", db, "--cluster", "c0000", "host", "list")
	t.Log(out)
	v, _ := f.Clusters[0].Hosts[1].File("/var/lib/kubelet/config.yaml")
	t.Log(v[:200])
	_, out, _ = kupgrade(t, "--db", db, "fleet", "show")
	t.Log(out)
}
