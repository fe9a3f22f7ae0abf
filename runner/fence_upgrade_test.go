package runner_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/fencefile"
	"github.com/kupgrade/kupgrade/runner"
)

// refusedOrRan plays script under f and says "ran" or the refusal; any other failure fails t.
func refusedOrRan(t *testing.T, dir string, f runner.Fence) string {
	t.Helper()
	os.Remove(dir + "/ran")
	err := playFenced(t, "touch "+dir+"/ran", f).wait(t)
	_, statErr := os.Stat(dir + "/ran")
	switch {
	case err == nil && statErr == nil:
		return "ran"
	case errors.Is(err, runner.ErrFenced) && statErr != nil:
		return err.Error()
	}
	t.Fatalf("play: %v (ran: %v)", err, statErr == nil)
	return ""
}

// One cluster, one upgrade, whatever the database: while an upgrade's claim on a host is live,
// another upgrade of the same cluster recorded in another database is refused, naming the
// other's id, runner and database; so is one that reaches the cluster under another name (the
// same kube-system UID). Another upgrade of the same database (the database orders them) is
// accepted, and so is anyone once the claim has passed.
func TestFenceOneUpgradePerCluster(t *testing.T) {
	dir := t.TempDir()
	a := runner.Fence{Cluster: "lab", ClusterUID: "uid-1", Key: "u1", Generation: 3, Owner: "jump:42:aa", Database: "sqlite:jump:/var/lib/kupgrade/kupgrade.db",
		Wait: time.Minute, Claim: time.Hour, Dir: filepath.Join(dir, "fence")}
	if got := refusedOrRan(t, dir, a); got != "ran" {
		t.Fatal(got)
	}
	laptop := runner.Fence{Cluster: "lab", ClusterUID: "uid-1", Key: "u2", Generation: 1, Owner: "laptop:7:bb", Database: "sqlite:laptop:/home/ops/.local/state/kupgrade/kupgrade.db",
		Wait: time.Minute, Dir: a.Dir}
	renamed := laptop
	renamed.Cluster = "prod-east"
	for name, f := range map[string]runner.Fence{"another database": laptop, "another name for the cluster": renamed} {
		got := refusedOrRan(t, dir, f)
		for _, want := range []string{"one cluster, one upgrade", "u1", "jump:42:aa", "sqlite:jump:/var/lib/kupgrade/kupgrade.db", "uid-1"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: %q does not say %q", name, got, want)
			}
		}
	}
	next := laptop
	next.Database = a.Database
	if got := refusedOrRan(t, dir, next); got != "ran" {
		t.Errorf("a new upgrade recorded in the same database: %s, want it to run", got)
	}
	next.Claim = 0 // its claim ends with its command: the host is free
	if got := refusedOrRan(t, dir, next); got != "ran" {
		t.Fatal(got)
	}
	if got := refusedOrRan(t, dir, laptop); got != "ran" {
		t.Errorf("another database once the claim has passed: %s, want it to run (a dead runner's host is taken over)", got)
	}
}

// Two clusters that share a name are two clusters when their UIDs differ: the other is
// refused as another cluster's, even from the same database.
func TestFenceTellsClustersByUID(t *testing.T) {
	dir := t.TempDir()
	a := runner.Fence{Cluster: "lab", ClusterUID: "uid-1", Key: "u1", Generation: 1, Owner: "a", Database: "db", Wait: time.Minute, Claim: time.Hour, Dir: filepath.Join(dir, "fence")}
	if got := refusedOrRan(t, dir, a); got != "ran" {
		t.Fatal(got)
	}
	b := runner.Fence{Cluster: "lab", ClusterUID: "uid-2", Key: "u2", Generation: 1, Owner: "b", Database: "db", Wait: time.Minute, Dir: a.Dir}
	if got := refusedOrRan(t, dir, b); !strings.Contains(got, "live upgrade of cluster lab (kube-system uid uid-1)") || !strings.Contains(got, "--cluster") {
		t.Errorf("a namesake cluster: %s, want refused as another cluster", got)
	}
}

// An older kupgrade's stamp names no database and no UID: while its claim is live, another
// upgrade of the cluster is refused (its database cannot be told), the same upgrade (its key,
// with this kupgrade now) runs on; once it has passed, anyone runs.
func TestFenceOlderStamp(t *testing.T) {
	dir := t.TempDir()
	f := runner.Fence{Cluster: "lab", ClusterUID: "uid-1", Key: "u2", Generation: 1, Owner: "b", Database: "db", Wait: time.Minute, Dir: filepath.Join(dir, "fence")}
	put := func(key string, until time.Time) {
		st := fencefile.Stamp{Cluster: "lab", Key: key, Generation: 1, Owner: "old:1:cc", Since: time.Now().Add(-time.Minute).UTC().Truncate(time.Second), Until: until, Label: "kubeadm"}
		if err := os.MkdirAll(f.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.Dir, runner.FenceStampFile), []byte(st.Line()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	put("u1", time.Now().Add(time.Hour))
	if got := refusedOrRan(t, dir, f); !strings.Contains(got, "old:1:cc with the database unknown (an older kupgrade)") {
		t.Errorf("another upgrade's live older stamp: %s, want refused naming its runner and an unknown database", got)
	}
	put("u2", time.Now().Add(time.Hour))
	if got := refusedOrRan(t, dir, f); got != "ran" {
		t.Errorf("this upgrade's own older stamp: %s, want it to run", got)
	}
	put("u1", time.Now().Add(-time.Second))
	if got := refusedOrRan(t, dir, f); got != "ran" {
		t.Errorf("another upgrade's older stamp past its claim: %s, want it to run", got)
	}
	if st := readStamp(t, dir); st.Cluster != "lab#uid-1" || st.Owner != "b#db" {
		t.Errorf("stamp %+v, want cluster lab#uid-1 and owner b#db", st)
	}
}

// The same upgrade taken over by another runner (a newer lease generation), whose database is
// named otherwise (another spelling of one server, a copied file), runs on: the generations of
// its key order them, not the database.
func TestFenceSameUpgradeAnotherRunner(t *testing.T) {
	dir := t.TempDir()
	a := runner.Fence{Cluster: "lab", ClusterUID: "uid-1", Key: "u1", Generation: 3, Owner: "r1", Database: "mysql://db1:3306/kupgrade",
		Wait: time.Minute, Claim: time.Hour, Dir: filepath.Join(dir, "fence")}
	if got := refusedOrRan(t, dir, a); got != "ran" {
		t.Fatal(got)
	}
	b := a
	b.Generation, b.Owner, b.Database = 4, "r2", "mysql://10.0.0.5:3306/kupgrade"
	if got := refusedOrRan(t, dir, b); got != "ran" {
		t.Errorf("the same upgrade's newer runner: %s, want it to run", got)
	}
	if got := refusedOrRan(t, dir, a); !strings.Contains(got, "newer operation") {
		t.Errorf("the same upgrade's older runner: %s, want refused by the generation", got)
	}
}
