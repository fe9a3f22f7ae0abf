package upgrade

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// Store is the slice of state.Store the workflow uses.
type Store interface {
	recovery.Store
	CreateUpgrade(ctx context.Context, nu state.NewUpgrade) (state.Upgrade, error)
	RenewLease(ctx context.Context, cluster, owner string, ttl time.Duration) (state.Lease, error)
	SetVersions(ctx context.Context, cluster, hostname, controlPlane, kubelet string, at time.Time) error
	AddBackups(ctx context.Context, cluster, hostname string, dirs, kubeletDirs []string) (state.Backups, error)
	AddSnapshot(ctx context.Context, snap state.EtcdSnapshot, actor state.Actor) (state.EtcdSnapshot, error)
	Snapshots(ctx context.Context, cluster string) ([]state.EtcdSnapshot, error)
	Events(ctx context.Context, cluster string, limit int) ([]state.Event, error)
	Entered(ctx context.Context, cluster, upgradeUUID string, s state.State) (bool, error)
	AddEvent(ctx context.Context, e state.Event) error
	DeleteUpgrade(ctx context.Context, cluster string, from state.State, actor state.Actor, reason string) error
}

// Runner is the slice of runner.Runner the workflow uses.
type Runner interface {
	Play(ctx context.Context, pb *playbooks.Playbook, inv *inventory.Inventory, po runner.PlayOptions) (*runner.Recap, error)
	Conn(ctx context.Context, h *inventory.Host) (runner.Conn, error)
}

// Workflow carries one cluster's upgrade forward. It is used by one command at a time.
type Workflow struct {
	Store     Store
	Runner    Runner
	Inventory *inventory.Inventory
	Cluster   string
	Owner     string        // lease owner; Owner() when empty
	LeaseTTL  time.Duration // default 30s
	// KubeadmTimeout bounds one kubeadm command (default 15m).
	KubeadmTimeout time.Duration
	// DrainTimeout bounds one node's drain, a budget that blocks it included (default 5m).
	DrainTimeout time.Duration
	// FenceWait bounds how long a step's command waits on a host for the host's fence, busy
	// with another kupgrade's command, before the step fails (default 2m; runner.Fence).
	FenceWait time.Duration
	// RecordFor bounds how long the final writes of an operation retry a database that does not
	// answer (default 2m); ProbeFor bounds the probe after a failure (default 45s).
	RecordFor time.Duration
	ProbeFor  time.Duration
	// AbortKubelets lets abort take back the kubelets this upgrade moved (--kubelets).
	AbortKubelets bool
	// RestoreEtcd asks abort to put etcd back from the upgrade's snapshot (--restore-etcd).
	RestoreEtcd bool
	// EtcdRestored tells abort the operator restored etcd from the snapshot by hand
	// (--etcd-restored): it goes on without the etcd check, and an event records it.
	EtcdRestored bool
	// MaxSnapshotAge is the age past which abort refuses to restore etcd from the upgrade's
	// snapshot (--max-snapshot-age; default DefaultMaxSnapshotAge), unless ForceOldSnapshot
	// (--force-old-snapshot): every API write since the snapshot would be discarded.
	MaxSnapshotAge   time.Duration
	ForceOldSnapshot bool
	// ConfirmEtcd, when set, is asked before abort restores etcd, with what the restore
	// discards (the snapshot's time and revision, etcd's revision now); an error refuses it.
	ConfirmEtcd func(what string) error
	// Snapshots says where the etcd snapshots taken before the control plane moves are kept.
	Snapshots SnapshotOptions
	// VerifyTimeout bounds how long complete waits for the cluster to report the upgrade done
	// (default DefaultVerifyTimeout).
	VerifyTimeout time.Duration
	Reporter      runner.Reporter
	Log           *slog.Logger
	// Probe reads a host's kubelet config and manifests (default ProbeHost); tests replace it.
	Probe func(ctx context.Context, c runner.Conn) (kubeadm.Snapshot, error)
	// Deleted, when set, is told the upgrade uuid a fleet run deleted to start a new one (its run
	// logs go with it, as with `upgrade delete`).
	Deleted func(cluster, uuid string)
	// Database names where this upgrade is recorded (state.DSN.Identity) in the host fence's
	// stamps: another database's upgrade of the cluster is refused while it is live.
	Database string
	uid      string // the cluster's kube-system UID, once read (clusterUID)
}

func (w *Workflow) probe(ctx context.Context, c runner.Conn) (kubeadm.Snapshot, error) {
	if w.Probe != nil {
		return w.Probe(ctx, c)
	}
	return ProbeHost(ctx, c)
}

// ProbeHost reads the kubelet config, manifests and kubeadm folders of the host behind c, as
// root: the runner runs the command over c, kubeadm says what to look at and reads the report.
func ProbeHost(ctx context.Context, c runner.Conn) (kubeadm.Snapshot, error) {
	return kubeadm.Prober{}.Probe(ctx, runner.ExecOn(c, true))
}

// ReadHost is ProbeHost that also reads what the host's kubelet and kubeadm report, in the same
// one command (Snapshot.Installed). The probes around a failed step do not use it: they run
// while a kubeadm may still be at work, and start no other.
func ReadHost(ctx context.Context, c runner.Conn) (kubeadm.Snapshot, error) {
	return kubeadm.Prober{Versions: true}.Probe(ctx, runner.ExecOn(c, true))
}

// readProbe is the probe readHost runs: Probe when a test set it, else ReadHost.
func (w *Workflow) readProbe(ctx context.Context, c runner.Conn) (kubeadm.Snapshot, error) {
	if w.Probe != nil {
		return w.Probe(ctx, c)
	}
	return ReadHost(ctx, c)
}

// ErrFailed marks an operation that ran and failed; the state now records it (exit 1).
var ErrFailed = errors.New("operation failed")

// ErrNotRecorded marks an operation whose outcome this process could not record: the database
// stayed unreachable past the recording budget, or someone else had already failed or taken over
// the operation (their outcome stands). The state may still say in flight until the lease expires
// and `kupgrade watch` or `kupgrade recover` fails it (exit 6).
var ErrNotRecorded = errors.New("outcome not recorded")

// StepError is a failed operation, recorded in the store: the failed state, the host that was
// being worked on, what the probe found on it, and the command that retries it.
type StepError struct {
	Step    string
	Host    string
	State   state.State // the state after the failure was recorded
	Cause   error
	Finding *kubeadm.Finding
	Retry   string
	// Recorded is false when the failure could not be written (the lease was lost: someone else
	// already failed the operation, or the database was unreachable).
	Recorded bool
	// Before: the step failed on Host before it could start there (failBefore); the error keeps
	// the class of its cause (an unreachable host: exit 5).
	Before bool
}

func (e *StepError) Error() string {
	where := e.Step
	if e.Host != state.WholeCluster {
		where += " on " + e.Host
	}
	return fmt.Sprintf("%s failed: %v", where, e.Cause)
}

// Unwrap classes the error as a failed operation (recorded or not), and as an interruption when a
// signal caused it.
func (e *StepError) Unwrap() []error {
	errs := []error{ErrFailed}
	if !e.Recorded {
		errs = []error{ErrNotRecorded}
	}
	if errors.Is(e.Cause, context.Canceled) {
		errs = append(errs, context.Canceled)
	}
	if e.Before {
		errs = append(errs, e.Cause)
	}
	return errs
}

func (w *Workflow) ttl() time.Duration {
	if w.LeaseTTL <= 0 {
		return 30 * time.Second
	}
	return w.LeaseTTL
}

func (w *Workflow) owner() string {
	if w.Owner == "" {
		w.Owner = Owner()
	}
	return w.Owner
}

func (w *Workflow) log() *slog.Logger {
	if w.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Log
}

// report sends ev, stamped with the store's clock (state changes are written by it) unless it
// carries its own time (a task's, on this machine's clock as the runner's tasks are).
func (w *Workflow) report(ev runner.Event) {
	if w.Reporter != nil {
		if ev.Time.IsZero() {
			ev.Time = w.Store.Now()
		}
		w.Reporter.Report(ev)
	}
}

func (w *Workflow) stateChanged(host string, from, to state.State, msg string) {
	w.report(runner.Event{Event: runner.EventStateChanged, Host: host, FromState: string(from), ToState: string(to), Msg: msg})
}

// playbook returns the user's playbook for step (inventory variable kupgrade_playbooks, a map of
// step name to file, relative to the inventory's folder), else the step's shipped one.
func (w *Workflow) playbook(step state.Step) (*playbooks.Playbook, error) {
	if file := w.userPlaybook(step.Name); file != "" {
		return playbooks.Load(file)
	}
	return playbooks.Embedded(step.Playbook)
}

func (w *Workflow) userPlaybook(step string) string {
	for _, h := range w.Inventory.Hosts {
		m, ok := h.Vars[playbooks.VarPlaybooks].(map[string]any)
		if !ok {
			continue
		}
		if f, ok := m[step].(string); ok && f != "" {
			if !filepath.IsAbs(f) { // relative to the inventory that defines the host (-i may be a folder)
				dir, _ := h.Vars["inventory_dir"].(string)
				if dir == "" {
					dir = filepath.Dir(w.Inventory.Path)
				}
				f = filepath.Join(dir, f)
			}
			return f
		}
	}
	return ""
}

// detached returns a short context that survives the cancellation of ctx, for the final writes.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
}

func (w *Workflow) host(name string) (*inventory.Host, error) {
	h, ok := w.Inventory.Host(name)
	if !ok {
		return nil, UnknownHost(name, w.Inventory)
	}
	return h, nil
}

// hosts returns the inventory hosts called names, in that order.
func (w *Workflow) hosts(names []string) ([]*inventory.Host, error) {
	hs := make([]*inventory.Host, len(names))
	for i, name := range names {
		h, err := w.host(name)
		if err != nil {
			return nil, err
		}
		hs[i] = h
	}
	return hs, nil
}

func (w *Workflow) kubeadmTimeout() time.Duration {
	if w.KubeadmTimeout <= 0 {
		return 15 * time.Minute
	}
	return w.KubeadmTimeout
}

func (w *Workflow) drainTimeout() time.Duration {
	if w.DrainTimeout <= 0 {
		return 5 * time.Minute
	}
	return w.DrainTimeout
}

func (w *Workflow) fenceWait() time.Duration {
	if w.FenceWait <= 0 {
		return 2 * time.Minute
	}
	return w.FenceWait
}

// view returns what the pre-checks look at: the upgrade, its hosts, the cluster's lease and now.
//
// Nothing has started yet, so a database that drops the connection (a restart, a Galera node
// failing over) is read again for as long as a final write would be retried.
func (w *Workflow) view(ctx context.Context) (in view, err error) {
	rctx, cancel := context.WithTimeout(ctx, w.recordFor())
	defer cancel()
	err = w.retryDB(rctx, "read the upgrade, its hosts and its lease", func(ctx context.Context) error {
		var err error
		if in.u, err = w.Store.Upgrade(ctx, w.Cluster); err != nil {
			return err
		}
		if in.hosts, err = w.Store.Hosts(ctx, w.Cluster); err != nil {
			return err
		}
		in.lease, err = w.Store.Lease(ctx, w.Cluster)
		return err
	})
	in.now = w.Store.Now()
	return in, err
}

// leaseFree refuses (state.ErrConflict, exit 4) while another operation holds a live lease on
// the cluster of u.
func (w *Workflow) leaseFree(ctx context.Context, u state.Upgrade) error {
	l, err := w.Store.Lease(ctx, w.Cluster)
	if err != nil {
		return err
	}
	return state.CheckLease(u, l, w.Store.Now())
}
