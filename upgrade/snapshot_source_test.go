package upgrade_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state"
)

const controllerCopy = "controller-0:/var/lib/etcd/kupgrade-snapshot.db"

// lostRunnerCopy is a stacked etcd moved a minor, its snapshot recorded with both places, then
// the runner's copy deleted (another runner of the database, or a replaced machine, aborts).
func lostRunnerCopy(t *testing.T) (*fixture, *etcdSim, state.EtcdSnapshot) {
	f := newFixture(t)
	snapshotCluster(t, f, sumOf(snapData))
	withEtcd(t, f, "3.5.12-0", "3.6.4-0")
	sim := newEtcdSim(t, f)
	snaps, err := f.st.Snapshots(t.Context(), "default")
	if err != nil || len(snaps) != 1 {
		t.Fatalf("snapshots = %+v, %v; want one", snaps, err)
	}
	s := snaps[0]
	if host, _ := os.Hostname(); s.Hostname+":"+s.ControllerPath != controllerCopy || s.RunnerHost != host {
		t.Fatalf("snapshot recorded at %s:%s, runner %q; want %s and this machine", s.Hostname, s.ControllerPath, s.RunnerHost, controllerCopy)
	}
	if err := os.Remove(s.Path); err != nil {
		t.Fatal(err)
	}
	f.w.RestoreEtcd = true
	return f, sim, s
}

// TestAbortRestoresFromTheControllersCopy: with the runner's copy of the snapshot gone, abort
// --restore-etcd copies the controller's file, checks it against the sha256 recorded, restores
// every member from it, and says so in its question and in an event.
func TestAbortRestoresFromTheControllersCopy(t *testing.T) {
	f, sim, s := lostRunnerCopy(t)
	var asked string
	f.w.ConfirmEtcd = func(what string) error { asked = what; return nil }
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("abort: %v", err)
	}
	f.wantState(t, state.UpgradeAborted)
	said := "restoring from the controller's copy " + controllerCopy + " instead, whose sha256 is the " + s.SHA256 + " recorded"
	if !strings.Contains(asked, said) || !strings.Contains(asked, s.Path) || !eventSays(t, f, said) {
		t.Errorf("the question %q and the events do not say the controller's copy is used", asked)
	}
	if sim.restored["controller-0"] != 1 || sim.restored["controller-1"] != 1 {
		t.Errorf("restores %v; want each member restored once", sim.restored)
	}
	file, _ := f.c.vars[len(f.c.played())-3]["kupgrade_etcd_restore_file"].(string)
	if got, err := os.ReadFile(file); err != nil || string(got) != snapData || file == s.Path {
		t.Errorf("the restore copied %s (%q, %v) to the members; want the controller's copy, fetched", file, got, err)
	}
}

// TestAbortRefusesWithNoUsableSnapshot: the runner's copy gone and the controller's with another
// sha256, abort --restore-etcd refuses naming both places and why, and changes nothing: no play,
// no restore, the state as it was, no copy kept, no event of a fallback.
func TestAbortRefusesWithNoUsableSnapshot(t *testing.T) {
	f, sim, s := lostRunnerCopy(t)
	f.c.results["kupgrade-snapshot.db"] = runnertest.Result{Stdout: "a later hop's snapshot"}
	before := len(f.c.played())
	err := f.w.Abort(t.Context())
	for _, want := range []string{"neither copy of the etcd snapshot can be used", "the runner's copy " + s.RunnerHost + ":" + s.Path,
		"no such file", "the controller's copy " + controllerCopy, "has sha256 " + sumOf("a later hop's snapshot") + ", not the " + s.SHA256 + " recorded"} {
		if !errors.Is(err, state.ErrRefused) || !strings.Contains(err.Error(), want) {
			t.Fatalf("abort: %v; want a refusal saying %q", err, want)
		}
	}
	if got := f.c.played()[before:]; len(got) != 0 || len(sim.restored) != 0 {
		t.Errorf("played %v, restores %v after the refusal; want nothing", got, sim.restored)
	}
	f.wantState(t, state.UpgradedFirstMaster)
	if kept, _ := filepath.Glob(filepath.Join(filepath.Dir(s.Path), "*")); len(kept) != 0 {
		t.Errorf("files left in the snapshot folder: %v; want none", kept)
	}
	if eventSays(t, f, "the controller's copy") {
		t.Error("an event speaks of the controller's copy after the refusal")
	}
}
