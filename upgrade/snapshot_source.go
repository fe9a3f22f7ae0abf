package upgrade

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/state"
)

// usableSnapshot is the file abort restores etcd from: the runner's copy (snap.Path) when it
// is on this machine with the sha256 recorded, else the controller's file (controllerPath on
// snap.Hostname) copied here and checked against the same sha256: another runner of a shared
// database, or a machine that replaced the one that took the snapshot, holds no copy of its
// own. It returns snap with Path the file to restore from and, when the controller's copy is
// used, a note saying so; neither copy usable: an error naming both places and why.
func (w *Workflow) usableSnapshot(ctx context.Context, snap state.EtcdSnapshot) (state.EtcdSnapshot, string, error) {
	runnerErr := verifySnapshotFile(snap)
	if runnerErr == nil {
		return snap, "", nil
	}
	local, err := w.controllerCopy(ctx, snap)
	if err != nil {
		return snap, "", fmt.Errorf("neither copy of the etcd snapshot can be used: the runner's copy %s: %v; the controller's copy %s: %v",
			runnerPlace(snap), runnerErr, controllerPlace(snap), err)
	}
	note := fmt.Sprintf("the runner's copy of the etcd snapshot (%s) cannot be used (%v): restoring from the controller's copy %s instead, whose sha256 is the %s recorded (copied to %s)",
		runnerPlace(snap), runnerErr, controllerPlace(snap), snap.SHA256, local)
	snap.Path = local
	return snap, note, nil
}

// controllerPath is where etcdctl saved snap on its controller: as recorded, or, for a record
// written before the place was (migration 0016), where kupgrade has always saved it.
func controllerPath(snap state.EtcdSnapshot) string {
	return cmp.Or(snap.ControllerPath, health.SnapshotPath(health.EtcdConfig{External: snap.External}))
}

// runnerPlace names the runner's copy: its machine (when recorded) and its path.
func runnerPlace(snap state.EtcdSnapshot) string {
	if snap.RunnerHost == "" {
		return snap.Path
	}
	return snap.RunnerHost + ":" + snap.Path
}

// controllerPlace names the controller's copy: its host and its path.
func controllerPlace(snap state.EtcdSnapshot) string {
	return snap.Hostname + ":" + controllerPath(snap)
}

// controllerCopy copies the controller's file of snap into this cluster's snapshot folder on
// this machine, kept only when its sha256 is the one recorded, and returns where. A copy an
// earlier abort made there, still with that sha256, is used as it is: a restore under way has
// moved the controller's data dir, and the file with it, aside.
func (w *Workflow) controllerCopy(ctx context.Context, snap state.EtcdSnapshot) (string, error) {
	dir := cmp.Or(w.Snapshots.Dir, filepath.Join(os.TempDir(), "kupgrade-snapshots"))
	final := filepath.Join(SnapshotFolder(dir, w.Cluster), fmt.Sprintf("%s-hop%d-from-controller.db", snap.UpgradeUUID, snap.Hop))
	earlier := snap
	earlier.Path = final
	if verifySnapshotFile(earlier) == nil {
		return final, nil
	}
	h, ok := w.Inventory.Host(snap.Hostname)
	if !ok {
		return "", fmt.Errorf("%s is not in inventory %s", snap.Hostname, w.Inventory.Path)
	}
	c, err := w.Runner.Conn(ctx, h)
	if err != nil {
		return "", fmt.Errorf("cannot reach %s: %w", h.Name, err)
	}
	return final, copyChecked(ctx, c, controllerPath(snap), final, snap.SHA256, "not the "+snap.SHA256+" recorded when it was saved")
}

// recordFallback says, in the log and as an event, that the restore uses the controller's copy.
func (w *Workflow) recordFallback(ctx context.Context, note string) {
	if note == "" {
		return
	}
	w.log().Warn("abort: " + note)
	err := w.retryDB(ctx, "record the snapshot's fallback", func(ctx context.Context) error {
		return w.Store.AddEvent(ctx, state.Event{Cluster: w.Cluster, Hostname: state.WholeCluster, Actor: state.ActorCLI, Reason: "abort: " + note})
	})
	if err != nil {
		w.log().Warn("abort: the fallback to the controller's snapshot was not recorded as an event", "error", err)
	}
}
