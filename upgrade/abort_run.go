package upgrade

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/state"
)

// Abort rolls the controllers back to what the first control-plane step of this upgrade found
// on each, from the backup folders kubeadm made during this upgrade alone, and
// ends in upgrade-aborted only once every controller's versions and every kubelet are verified
// to be back; otherwise upgrade-aborting-failed names what differs (a second abort retries it).
// Controllers this upgrade never touched are left alone. Once a kubelet was upgraded abort
// refuses unless AbortKubelets (--kubelets): then it takes those kubelets back first
// (abort_kubelets.go says why first). etcd is put back from the snapshot only when asked
// (RestoreEtcd); where the abort needs it and it was not asked, abort refuses
// (checkEtcdRestore). The restore runs around the manifests' restore, in the same operation.
func (w *Workflow) Abort(ctx context.Context) error {
	step, _ := state.StepNamed(state.StepAbort)
	u, err := w.Store.Upgrade(ctx, w.Cluster)
	if err != nil {
		return err
	}
	if err := w.leaseFree(ctx, u); err != nil {
		return err
	}
	if err := state.CheckStep(u, step); err != nil {
		return err
	}
	hosts, err := w.Store.Hosts(ctx, w.Cluster)
	if err != nil {
		return err
	}
	cs, err := w.controllerHosts()
	if err != nil {
		return err
	}
	backs, err := w.kubeletsMoved(ctx, u, hosts)
	if err != nil {
		return err
	}
	if !w.AbortKubelets {
		if err := refuseKubelets(u, backs); err != nil {
			return err
		}
	}
	if err := w.repairPackages(ctx); err != nil {
		return err
	}
	plan, aside, err := w.abortPlan(ctx, u, hosts, cs)
	if err != nil {
		return err
	}
	er, err := w.checkEtcdRestore(ctx, u, plan, cs, aside)
	if err != nil {
		return err
	}
	if er != nil && !er.needed(len(aside) > 0) {
		w.log().Info("abort: every etcd member is already restored from this upgrade's snapshot", "snapshot", er.snap.Path)
		er = nil
	}
	if err := w.takeKubeletsBack(ctx, u, hosts, backs); err != nil {
		return err
	}
	if len(plan) == 0 && er == nil && len(backs) == 0 {
		if err := w.writeVersions(ctx, cs); err != nil {
			w.log().Warn("abort: the versions read were not recorded", "error", err)
		}
		return w.abortUntouched(ctx, u)
	}
	o, err := w.abortOp(u, hosts, plan, er, cs, backs)
	if err != nil {
		return err
	}
	return retryRestoring(o.execute(ctx), er != nil)
}

// retryRestoring gives a failed abort that was restoring etcd the retry that finishes it: a
// plain abort never restores etcd, so the retry needs --restore-etcd too.
func retryRestoring(err error, restoring bool) error {
	if se := (*StepError)(nil); restoring && errors.As(err, &se) && se.Recorded && se.Retry != "" {
		se.Retry = state.PlainCommand(state.Next("upgrade", "abort", "--restore-etcd"))
	}
	return err
}

// abortOp is the abort's operation: the manifests' restore on the controllers of plan and,
// when er is not nil, etcd's restore around it (its stop before, its restore and start after,
// the manifests restored in the aside folder meanwhile); then the versions' verification.
func (w *Workflow) abortOp(u state.Upgrade, rows []state.Host, plan []restore, er *etcdRestore, cs []*inventory.Host, backs []kubeletBack) (*op, error) {
	step, _ := state.StepNamed(state.StepAbort)
	pb, err := w.playbook(step)
	if err != nil {
		return nil, err
	}
	targets := make([]*inventory.Host, len(plan))
	for i, r := range plan {
		targets[i] = r.host
	}
	manifests := manifestsDir
	o := &op{w: w, step: step, from: u.State, hosts: targets, clusterOnly: true, pb: pb, joined: len(backs) > 0,
		check: func(ctx context.Context) error { return w.verifyAbort(ctx, u, plan, cs, backs) }}
	if er != nil {
		manifests, o.pre, o.post = asideDir(u.UUID), w.etcdStop(er), w.etcdRestoreStart(er)
	}
	if len(plan) == 0 {
		o.pb = nil // etcd or the kubelets alone: the manifests are as the upgrade found them
	}
	clusterConfig := clusterConfigVar(u, rows)
	if er != nil { // the API server is down during the play; the snapshot brings kubeadm-config back
		clusterConfig = ""
	}
	o.vars = w.vars(u, map[string]any{playbooks.VarAbortRestore: restoreVars(plan, manifests), playbooks.VarToVersion: u.FromVersion,
		playbooks.VarAbortClusterConfig: clusterConfig})
	return o, nil
}

// verifyAbort reads every controller again after the restore (manifests, config.yaml, and what
// kubelet and kubeadm report), writes the versions read into the host table, reads every
// kubelet (and the nodes of those taken back), and fails naming each difference from what the
// upgrade found.
func (w *Workflow) verifyAbort(ctx context.Context, u state.Upgrade, plan []restore, cs []*inventory.Host, backs []kubeletBack) error {
	restored := map[string]restore{}
	for _, r := range plan {
		restored[r.host.Name] = r
	}
	var diffs []string
	for _, h := range cs {
		c, err := w.Runner.Conn(ctx, h)
		if err != nil {
			return fmt.Errorf("verify the abort on %s: %w", h.Name, err)
		}
		snap, err := w.readProbe(ctx, c)
		if err != nil {
			return fmt.Errorf("verify the abort on %s: %w", h.Name, err)
		}
		if err := w.Store.SetVersions(ctx, w.Cluster, h.Name, snap.ControlPlaneVersion(), snap.Installed.Kubelet, w.Store.Now()); err != nil {
			w.log().Warn("abort: the versions read were not recorded", "host", h.Name, "error", err)
		}
		var d []string
		if r, ok := restored[h.Name]; ok {
			d = differences(r.before, snap)
			if r.kubeadm && snap.Installed.Kubeadm != u.FromVersion {
				d = append(d, fmt.Sprintf("kubeadm at %s, want %s", snap.Installed.Kubeadm, u.FromVersion))
			}
		} else if v := snap.ControlPlaneVersion(); v != "" && v != u.FromVersion {
			d = []string{fmt.Sprintf("control plane at %s, want %s", v, u.FromVersion)}
		}
		if len(d) > 0 {
			diffs = append(diffs, h.Name+": "+strings.Join(d, ", "))
		}
	}
	kd, err := w.kubeletsNotBack(ctx, u.FromVersion, backs)
	if err != nil {
		return err
	}
	if diffs = append(diffs, kd...); len(diffs) > 0 {
		return fmt.Errorf("after the restore, not back where the upgrade started: %s", strings.Join(diffs, "; "))
	}
	return w.awaitControlPlane(ctx, cs[0], u.FromVersion)
}

// awaitControlPlane waits, as complete does, until the API server asked on h is ready and every
// controller's control-plane pods are Running and Ready at version: the kubelets restart the
// restored static pods a moment after their manifests change, and an API server just restarted
// answers Forbidden until its caches are synced.
func (w *Workflow) awaitControlPlane(ctx context.Context, h *inventory.Host, version string) error {
	v, err := state.ParseVersion(version)
	if err != nil {
		return err
	}
	return w.awaitCluster(ctx, h, "Ask the API server whether every control-plane pod runs "+version+" and is ready", v,
		func(out string) []health.Result { return health.JudgeControlPlane(out, v) })
}

// writeVersions reads hs' versions and writes them into the host table.
func (w *Workflow) writeVersions(ctx context.Context, hs []*inventory.Host) error {
	return w.refresh(ctx, hs, true)
}
