package upgrade

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// DefaultMaxSnapshotAge is Workflow.MaxSnapshotAge when none is set: past it a restore of etcd
// from the upgrade's snapshot is refused unless ForceOldSnapshot.
const DefaultMaxSnapshotAge = 24 * time.Hour

// revisionReadFor bounds the read of etcd's revision now, which only feeds a message.
const revisionReadFor = 30 * time.Second

// SnapshotSaved says when s was saved, how long before now, and at which etcd revision: as
// abort's question and refusals and `upgrade show` name the snapshot.
func SnapshotSaved(s state.EtcdSnapshot, now time.Time) string {
	return fmt.Sprintf("saved %s (%s ago) at etcd revision %d", s.CreatedAt.UTC().Format("2006-01-02 15:04:05 MST"), recovery.AgeText(now.Sub(s.CreatedAt)), s.Revision)
}

// snapshotTooOld refuses a restore from snap once it is older than the age limit
// (MaxSnapshotAge), unless ForceOldSnapshot. A restore already under way (resuming) is not
// judged again: its control plane is stopped and only the restore brings it back.
func (w *Workflow) snapshotTooOld(snap state.EtcdSnapshot, resuming bool) error {
	limit := cmp.Or(w.MaxSnapshotAge, DefaultMaxSnapshotAge)
	now := w.Store.Now()
	if w.ForceOldSnapshot || resuming || now.Sub(snap.CreatedAt) <= limit {
		return nil
	}
	return fmt.Errorf("the snapshot %s was %s, longer ago than --max-snapshot-age %s: restoring it would discard every API write made since then; "+
		"pass --force-old-snapshot to restore it all the same (or a longer --max-snapshot-age)", snap.Path, SnapshotSaved(snap, now), limit)
}

// discards says what a restore from snap throws away: the snapshot's time and revision, and the
// cluster's revision now as h reads it (or why it cannot be read).
func (w *Workflow) discards(ctx context.Context, snap state.EtcdSnapshot, h *inventory.Host) string {
	s := "the snapshot " + SnapshotSaved(snap, w.Store.Now())
	rev, err := w.revisionNow(ctx, h)
	switch {
	case err != nil:
		s += fmt.Sprintf("; etcd's revision now could not be read on %s (%v)", h.Name, err)
	case rev >= snap.Revision:
		s += fmt.Sprintf("; etcd is at revision %d now, %d revisions later", rev, rev-snap.Revision)
	default:
		s += fmt.Sprintf("; etcd is at revision %d now", rev)
	}
	return s + "; a restore from it discards every API write made since it was saved"
}

// revisionNow reads etcd's revision now with etcdctl on h, where kubeadm's ClusterConfiguration
// says etcd is.
func (w *Workflow) revisionNow(ctx context.Context, h *inventory.Host) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, revisionReadFor)
	defer cancel()
	c, err := w.Runner.Conn(ctx, h)
	if err != nil {
		return 0, err
	}
	cfg, err := w.etcdConfig(ctx, c)
	if err != nil {
		return 0, fmt.Errorf("cannot tell where etcd is: %w", err)
	}
	rc, out, stderr, err := runner.ExecOn(c, true)(ctx, health.EtcdRevisionScript(cfg), nil)
	if err == nil && rc != 0 {
		err = fmt.Errorf("exit status %d: %s", rc, strings.TrimSpace(stderr))
	}
	if err != nil {
		return 0, err
	}
	return health.ReadRevision(out)
}

// confirmRestore asks ConfirmEtcd (the operator, on a terminal) before a restore from snap,
// naming what it discards and, in note, where the file comes from when not from the runner's
// copy; without ConfirmEtcd it only logs it.
func (w *Workflow) confirmRestore(ctx context.Context, snap state.EtcdSnapshot, h *inventory.Host, members int, note string) error {
	what := fmt.Sprintf("abort --restore-etcd stops the control plane and restores %d etcd member(s) from %s", members, w.discards(ctx, snap, h))
	if note != "" {
		what += ";\n" + note
	}
	w.log().Info("abort: " + what)
	if w.ConfirmEtcd == nil {
		return nil
	}
	return w.ConfirmEtcd(what + ".")
}

// refuseUnasked is a plain abort's refusal where the abort cannot be done without putting etcd
// back: an earlier abort's restore is under way (the manifests are aside), or this upgrade moved
// etcd to a newer minor. It names the snapshot's time and revision, etcd's revision now, what
// --restore-etcd would discard, and etcd's own downgrade where it keeps the data.
func (w *Workflow) refuseUnasked(ctx context.Context, u state.Upgrade, plan []restore, cs []*inventory.Host, aside []string) error {
	if len(aside) > 0 {
		return fmt.Errorf("%w: abort: an earlier `upgrade abort --restore-etcd` of this upgrade was putting etcd back: the static pod manifests of %s are aside in %s (their control plane is stopped); "+
			"a plain abort never restores etcd, and nothing was changed: `kupgrade upgrade abort --restore-etcd` finishes that restore, or restore etcd by hand and run `kupgrade upgrade abort --etcd-restored`",
			state.ErrRefused, strings.Join(aside, ", "), asideDir(u.UUID))
	}
	snap, err := w.abortSnapshot(ctx, u)
	if err != nil {
		return err
	}
	way := "this upgrade has no etcd snapshot (its events say why none was taken): restore etcd from a backup of your own, then run `kupgrade upgrade abort --etcd-restored`"
	if snap != nil {
		way = "`kupgrade upgrade abort --restore-etcd` would put etcd back from the upgrade's snapshot instead: " + w.discards(ctx, *snap, cs[0]) +
			"; or restore etcd by hand and run `kupgrade upgrade abort --etcd-restored`"
	}
	return fmt.Errorf("%w: abort: this upgrade moved etcd to a newer minor on %s, whose data the older etcd cannot read, so the manifests cannot go back alone; "+
		"a plain abort never restores etcd from a snapshot, and nothing was changed. %s%s",
		state.ErrRefused, strings.Join(etcdMoved(plan), ", "), downgradePath(plan), way)
}

// downgradePath is etcd's own way back one minor, which keeps the data (etcd 3.6 and later to
// the minor before, through its downgrade API), when every member this upgrade moved could
// take it; "" otherwise. kupgrade does not drive it: the text says what to run by hand.
func downgradePath(plan []restore) string {
	to := ""
	for _, r := range plan {
		now, okN := minorOf(r.etcdNow)
		from, okF := minorOf(r.etcdFrom)
		if !newerMinor(r.etcdNow, r.etcdFrom) {
			continue
		}
		v := fmt.Sprintf("%d.%d", from[0], from[1])
		if !okN || !okF || now[0] != 3 || from[0] != 3 || now[1] < 6 || now[1] != from[1]+1 || (to != "" && to != v) {
			return ""
		}
		to = v
	}
	if to == "" {
		return ""
	}
	return fmt.Sprintf("etcd can go back to %s keeping every write, through its own downgrade API (etcd 3.6 and later): `etcdctl downgrade validate %s`, "+
		"then `etcdctl downgrade enable %s`, then each member's etcd.yaml back on its %s image, one member at a time, as etcd's downgrade guide says; "+
		"kupgrade does not drive that: once every member runs %s again, a plain `kupgrade upgrade abort` finds etcd no longer moved and puts the rest back without a restore. ",
		to, to, to, to, to)
}
