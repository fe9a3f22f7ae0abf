package upgrade

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/state"
)

// etcdMoved names the controllers of plan whose etcd this upgrade moved to a newer minor
// (3.5 -> 3.6): an older etcd does not start on the data a newer minor wrote, so putting the
// older etcd.yaml back alone would leave etcd down. A patch release within a minor is not
// counted: etcd reads its own minor's data either way.
func etcdMoved(plan []restore) []string {
	var moved []string
	for _, r := range plan {
		if newerMinor(r.etcdNow, r.etcdFrom) {
			moved = append(moved, fmt.Sprintf("%s (etcd %s, was %s)", r.host.Name, r.etcdNow, r.etcdFrom))
		}
	}
	return moved
}

// newerMinor reports whether etcd tag now ("3.6.4-0") is a newer major.minor than from.
func newerMinor(now, from string) bool {
	a, okA := minorOf(now)
	b, okB := minorOf(from)
	return okA && okB && (a[0] > b[0] || a[0] == b[0] && a[1] > b[1])
}

func minorOf(tag string) ([2]int, bool) {
	f := strings.SplitN(strings.TrimPrefix(tag, "v"), ".", 3)
	if len(f) < 2 {
		return [2]int{}, false
	}
	maj, err1 := strconv.Atoi(f[0])
	mi, err2 := strconv.Atoi(f[1])
	return [2]int{maj, mi}, err1 == nil && err2 == nil
}

// checkEtcdRestore decides whether this abort puts etcd back from the upgrade's snapshot: only
// when the operator asked (--restore-etcd, RestoreEtcd). Where the abort cannot be done without
// it (etcd moved to a newer minor, or an earlier attempt of this abort left the manifests aside)
// a plain abort refuses, saying why and what a restore would discard (refuseUnasked). Asked, it
// checks the snapshot (recorded, no older than the age limit unless ForceOldSnapshot, its file
// present with the sha256 recorded: the runner's copy, else the controller's, as
// usableSnapshot says), reads every member (etcdMembers) and asks ConfirmEtcd,
// naming the snapshot's time and revision, the cluster's revision now and what is discarded.
// Where kupgrade cannot restore a member itself it refuses, before anything is written, naming
// what is missing and the commands that restore each member by hand, to run before aborting
// again with --etcd-restored (EtcdRestored), which an event records. aside names the
// controllers whose manifests an earlier attempt left aside. Nothing to restore: nil.
func (w *Workflow) checkEtcdRestore(ctx context.Context, u state.Upgrade, plan []restore, cs []*inventory.Host, aside []string) (*etcdRestore, error) {
	moved := etcdMoved(plan)
	if w.EtcdRestored {
		return nil, w.restoredByHand(ctx, u, moved, aside)
	}
	if !w.RestoreEtcd {
		if len(moved) == 0 && len(aside) == 0 {
			return nil, nil
		}
		return nil, w.refuseUnasked(ctx, u, plan, cs, aside)
	}
	why := "--restore-etcd asks for etcd to be put back"
	if len(aside) > 0 {
		why = "an earlier abort of this upgrade was putting etcd back (the manifests of " + strings.Join(aside, ", ") + " are aside)"
	}
	snap, err := w.abortSnapshot(ctx, u)
	if err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, fmt.Errorf("%w: abort: %s, and this upgrade has no etcd snapshot (its events say why none was taken): nothing was restored; restore etcd from a backup of your own, then `kupgrade upgrade abort --etcd-restored`",
			state.ErrRefused, why)
	}
	if err := w.snapshotTooOld(*snap, len(aside) > 0); err != nil {
		return nil, fmt.Errorf("%w: abort: %s, but %v; nothing was changed", state.ErrRefused, why, err)
	}
	usable, note, err := w.usableSnapshot(ctx, *snap)
	if err != nil {
		return nil, fmt.Errorf("%w: abort: %s, but %v: nothing was restored; put a good copy back at either place, or restore etcd from a backup of your own and run `kupgrade upgrade abort --etcd-restored`",
			state.ErrRefused, why, err)
	}
	snap = &usable
	r, err := w.readMembers(ctx, u, *snap, cs)
	if err != nil {
		return nil, fmt.Errorf("%w: abort: %s, and the snapshot %s is verified, but kupgrade cannot put etcd back itself: %v; nothing was changed. By hand: %s; then `kupgrade upgrade abort --etcd-restored`",
			state.ErrRefused, why, snap, err, restoreCommands(*snap))
	}
	if err := w.confirmRestore(ctx, *snap, cs[0], len(r.members), note); err != nil {
		return nil, err
	}
	w.recordFallback(ctx, note)
	w.log().Info("abort: etcd will be restored", "why", why, "snapshot", snap.Path, "revision", snap.Revision, "saved", snap.CreatedAt, "members", len(r.members))
	return r, nil
}

// restoredByHand records --etcd-restored (the operator put etcd back from the snapshot by
// hand); refused while an earlier abort's restore left manifests aside.
func (w *Workflow) restoredByHand(ctx context.Context, u state.Upgrade, moved, aside []string) error {
	if len(aside) > 0 {
		return fmt.Errorf("%w: abort --etcd-restored: an earlier abort of this upgrade moved the static pod manifests of %s aside to %s while it put etcd back: abort again with --restore-etcd, without --etcd-restored, to finish that restore",
			state.ErrRefused, strings.Join(aside, ", "), asideDir(u.UUID))
	}
	return w.retryDB(ctx, "record --etcd-restored", func(ctx context.Context) error {
		return w.Store.AddEvent(ctx, state.Event{Cluster: w.Cluster, Hostname: state.WholeCluster, Actor: state.ActorCLI,
			Reason: "abort: etcd restored by hand from the upgrade's snapshot (--etcd-restored); etcd moved on: " + strings.Join(moved, ", ")})
	})
}

// abortSnapshot is the snapshot abort restores from: the one taken before this upgrade's first
// hop; nil when none was recorded.
func (w *Workflow) abortSnapshot(ctx context.Context, u state.Upgrade) (*state.EtcdSnapshot, error) {
	snaps, err := w.Store.Snapshots(ctx, w.Cluster)
	if err != nil {
		return nil, fmt.Errorf("abort: read the etcd snapshots: %w", err)
	}
	snap, ok := state.SnapshotFor(snaps, u.UUID, 0)
	if !ok {
		return nil, nil
	}
	return &snap, nil
}

// readMembers reads every etcd member (etcdMembers) and composes the restored cluster's
// members; an error names each member kupgrade cannot restore and why.
func (w *Workflow) readMembers(ctx context.Context, u state.Upgrade, snap state.EtcdSnapshot, cs []*inventory.Host) (*etcdRestore, error) {
	hs, err := w.etcdMembers(snap, cs)
	if err != nil {
		return nil, err
	}
	r := &etcdRestore{u: u, snap: snap, controllers: cs}
	var problems, cluster []string
	for _, h := range hs {
		m, err := w.discoverMember(ctx, u, snap, h)
		if err == nil && m.missing() != "" {
			err = fmt.Errorf("%s: %s", h.Name, m.missing())
		}
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		r.members = append(r.members, m)
		cluster = append(cluster, m.name+"="+m.peerURL)
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	for i := range r.members {
		r.members[i].initialCluster = strings.Join(cluster, ",")
		if t := r.members[i].token(); t != r.members[0].token() {
			return nil, fmt.Errorf("the members disagree on --initial-cluster-token (%s on %s, %s on %s)", r.members[0].token(), r.members[0].host.Name, t, r.members[i].host.Name)
		}
	}
	return r, nil
}

// verifySnapshotFile checks that the snapshot's file is there with the sha256 recorded.
func verifySnapshotFile(snap state.EtcdSnapshot) error {
	f, err := os.Open(snap.Path)
	if err != nil {
		return fmt.Errorf("the etcd snapshot %s cannot be read: %v", snap.Path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("the etcd snapshot %s cannot be read: %v", snap.Path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != snap.SHA256 {
		return fmt.Errorf("the etcd snapshot %s has sha256 %s, not the %s recorded when it was saved (corrupt or replaced)", snap.Path, got, snap.SHA256)
	}
	return nil
}

// restoreCommands are etcd's documented restore, for each member, from snap.
func restoreCommands(snap state.EtcdSnapshot) string {
	stop := "move /etc/kubernetes/manifests/kube-apiserver.yaml and etcd.yaml aside on every controller"
	start := "put the manifests back"
	if snap.External {
		stop, start = "stop the API servers (their manifests aside) and every etcd member", "start etcd, then put the API servers' manifests back"
	}
	return fmt.Sprintf("%s; on each etcd member copy %s there and run `etcdutl snapshot restore FILE --name MEMBER --initial-cluster NAME1=PEER_URL1,... "+
		"--initial-advertise-peer-urls PEER_URL --initial-cluster-token kupgrade-restore-%d --data-dir DATA_DIR.restored`, "+
		"keep the old data dir aside and move DATA_DIR.restored in its place; %s; wait for `kubectl get --raw /readyz` to answer ok",
		stop, snap.Path, snap.Revision, start)
}
