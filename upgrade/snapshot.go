package upgrade

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// SnapshotOptions say where an upgrade keeps the etcd snapshots it takes before its control
// plane moves.
type SnapshotOptions struct {
	// Dir is the folder on kupgrade's side; each cluster's snapshots go in a folder of its own
	// under it. "": no snapshot is taken (a library caller that wants none).
	Dir string
	// Keep is how many upgrades' snapshots are kept per cluster, newest first (default 3); the
	// running upgrade's are never removed.
	Keep int
}

// snapshotDue reports whether the control-plane step about to run on the first controller of
// u's hop must take an etcd snapshot first: none recorded yet for this upgrade's hop (a retry
// keeps the one taken), and snapshots wanted.
func (w *Workflow) snapshotDue(ctx context.Context, u state.Upgrade, first bool) (bool, error) {
	if !first || w.Snapshots.Dir == "" {
		return false, nil
	}
	snaps, err := w.Store.Snapshots(ctx, w.Cluster)
	if err != nil {
		return false, fmt.Errorf("read the etcd snapshots recorded: %w", err)
	}
	_, taken := state.SnapshotFor(snaps, u.UUID, u.Hop)
	return !taken, nil
}

// snapshotPre is the pre-play work of a control-plane step on h: the etcd snapshot when one is
// due (nil when none is).
func (w *Workflow) snapshotPre(ctx context.Context, u state.Upgrade, h *inventory.Host, first bool) (func(context.Context, runner.PlayOptions) error, error) {
	due, err := w.snapshotDue(ctx, u, first)
	if err != nil || !due {
		return nil, err
	}
	return func(ctx context.Context, po runner.PlayOptions) error { return w.takeSnapshot(ctx, u, h, po) }, nil
}

// snapshotTask is the etcd snapshot as the plan shows it, before the first controller's
// control-plane tasks: where the file would go and how long it is kept.
func (w *Workflow) snapshotTask(step state.Step, u state.Upgrade) (PlannedTask, bool) {
	if step.Running != state.UpgradingFirstMaster || w.Snapshots.Dir == "" {
		return PlannedTask{}, false
	}
	uuid := u.UUID
	if uuid == "" {
		uuid = "UPGRADE"
	}
	where := filepath.Join(SnapshotFolder(w.Snapshots.Dir, w.Cluster), fmt.Sprintf("%s-hop%d-TIME.db", uuid, u.Hop))
	return PlannedTask{Name: "Save an etcd snapshot before the control plane moves", Module: "etcd-snapshot",
		Command: fmt.Sprintf("etcdctl snapshot save on the controller, copied to %s and checked (sha256), kept for %d upgrades; once per hop (a later hop only with stacked etcd)",
			where, cmp.Or(w.Snapshots.Keep, 3))}, true
}

// takeSnapshot is the first control-plane step's work before kubeadm: where etcd is (kubeadm's
// ClusterConfiguration), etcdctl snapshot save under the step's fence (the etcd-snapshot
// playbook), the copy to kupgrade's side checked against the controller's sha256, the record
// and its event, then the pruning of older upgrades' files. A hop after the first takes none
// when etcd is external: kubeadm moves only a stacked etcd. A controller with no etcdctl (nor
// an etcd container), or whose ClusterConfiguration cannot be read, gets an event saying why no
// snapshot exists, and the step goes on; every other failure fails the step.
func (w *Workflow) takeSnapshot(ctx context.Context, u state.Upgrade, h *inventory.Host, po runner.PlayOptions) error {
	c, err := w.Runner.Conn(ctx, h)
	if err != nil {
		return fmt.Errorf("etcd snapshot on %s: %w", h.Name, err)
	}
	cfg, err := w.etcdConfig(ctx, c)
	if err != nil {
		return w.noSnapshot(ctx, u, h, "cannot tell where etcd is: "+err.Error())
	}
	if u.Hop > 0 && cfg.External {
		return w.noSnapshot(ctx, u, h, fmt.Sprintf("etcd is external: kubeadm does not move it at hop %d", u.Hop))
	}
	path := health.SnapshotPath(cfg)
	facts, err := w.saveSnapshot(ctx, h, cfg, path, po)
	if errors.Is(err, health.ErrNoEtcdctl) {
		return w.noSnapshot(ctx, u, h, err.Error())
	}
	if err != nil {
		return fmt.Errorf("etcd snapshot on %s: %w", h.Name, err)
	}
	local, err := w.fetchSnapshot(ctx, c, u, facts)
	if err != nil {
		return fmt.Errorf("etcd snapshot on %s: %w", h.Name, err)
	}
	runnerHost, _ := os.Hostname()
	rec := state.EtcdSnapshot{Cluster: w.Cluster, UpgradeUUID: u.UUID, Hop: u.Hop, Hostname: h.Name, Path: local, RunnerHost: runnerHost,
		ControllerPath: facts.Path, SHA256: facts.SHA256, Revision: facts.Revision, Hash: facts.Hash, Size: facts.Size, External: cfg.External}
	err = w.retryDB(ctx, "record the etcd snapshot", func(ctx context.Context) error {
		var err error
		rec, err = w.Store.AddSnapshot(ctx, rec, state.ActorRunner)
		return err
	})
	if err != nil {
		return fmt.Errorf("etcd snapshot %s saved but not recorded: %w", local, err)
	}
	w.log().Info("etcd snapshot saved", "path", rec.Path, "revision", rec.Revision, "sha256", rec.SHA256, "size", rec.Size)
	w.pruneSnapshots(u.UUID)
	return nil
}

// etcdConfig reads where etcd is from kubeadm's ClusterConfiguration, on the controller behind c.
func (w *Workflow) etcdConfig(ctx context.Context, c runner.Conn) (health.EtcdConfig, error) {
	rc, out, stderr, err := runner.ExecOn(c, true)(ctx, health.EtcdConfigScript, nil)
	if err == nil && rc != 0 {
		err = fmt.Errorf("exit status %d: %s", rc, strings.TrimSpace(stderr))
	}
	if err != nil {
		return health.EtcdConfig{}, err
	}
	return health.ReadEtcdConfig(out)
}

// saveSnapshot runs the etcd-snapshot playbook on h under po (the step's fence and gate) and
// reads what its script found.
func (w *Workflow) saveSnapshot(ctx context.Context, h *inventory.Host, cfg health.EtcdConfig, path string, po runner.PlayOptions) (health.SnapshotFacts, error) {
	pb, err := playbooks.Embedded("etcd-snapshot")
	if err != nil {
		return health.SnapshotFacts{}, err
	}
	po.Hosts = []string{h.Name}
	po.ExtraVars = map[string]any{playbooks.VarEtcdSnapshotScript: health.EtcdSnapshotScript(cfg, path)}
	recap, err := w.Runner.Play(ctx, pb, w.Inventory, po)
	if err != nil {
		return health.SnapshotFacts{}, err
	}
	reg, _ := recap.Registered[h.Name][playbooks.VarEtcdSnapshot].(map[string]any)
	out, _ := reg["stdout"].(string)
	return health.ReadSnapshot(out, path)
}

// noSnapshot records, as an event, why the step goes on without an etcd snapshot.
func (w *Workflow) noSnapshot(ctx context.Context, u state.Upgrade, h *inventory.Host, why string) error {
	w.log().Warn("no etcd snapshot", "host", h.Name, "hop", u.Hop, "why", why)
	err := w.retryDB(ctx, "record that no etcd snapshot was taken", func(ctx context.Context) error {
		return w.Store.AddEvent(ctx, state.Event{Cluster: w.Cluster, Hostname: h.Name, Actor: state.ActorRunner,
			Reason: fmt.Sprintf("no etcd snapshot at hop %d: %s", u.Hop, why)})
	})
	if err != nil {
		return fmt.Errorf("record that no etcd snapshot was taken: %w", err)
	}
	return nil
}
