package upgrade

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// op is one operation of a step: the transition into flight, the playbook, and the outcome per
// host. Cluster steps have no hosts; a control-plane op has one; a kubelet op has a batch.
type op struct {
	w        *Workflow
	step     state.Step
	from     state.State
	hop      int // the upgrade's hop when the op was checked: its start compares it
	hosts    []*inventory.Host
	hostFrom map[string]state.HostStatus
	hostTo   state.HostStatus // in-flight status while it runs ("" for cluster steps)
	hostDone state.HostStatus // status on success
	target   string
	pb       *playbooks.Playbook
	vars     map[string]any
	kubeadm  bool // probe the hosts before and after a failure
	// before names the playbook variable that receives the snapshot taken before (one host
	// only), so that the playbook does not probe the host a second time.
	before string
	// clusterOnly: hosts only limit where the playbook runs; no host status changes (cordon,
	// uncordon, abort).
	clusterOnly bool
	// verify runs after the playbook succeeded on h, given what the playbook registered on h;
	// an error fails h.
	verify func(ctx context.Context, h *inventory.Host, reg map[string]any) error
	// pre runs before the playbook, under the same fence and gate (po, without the playbook's
	// variables): the etcd snapshot of the first control-plane step. An error fails the step.
	pre func(ctx context.Context, po runner.PlayOptions) error
	// post runs after the playbook succeeded (or alone when pb is nil), under the same fence
	// and gate: abort's etcd restore and start. An error fails the step.
	post func(ctx context.Context, po runner.PlayOptions) error
	// check runs after the playbook of a step without host statuses succeeded (abort's
	// verification of the versions), or alone when pb is nil (complete's verification); an
	// error fails the step.
	check func(ctx context.Context) error
	// phased: the kubelet step's phases (phases.go) move each host draining-node ->
	// upgrading-kubelet -> uncordoning-node -> upgraded-kubelet, each running the playbook's
	// tasks of its tag; hostTo and hostDone are then the running phase's.
	phased bool
	tags   []string // the playbook's tags this play runs (a phase's); nil: every task
	// keep: a success does not release the lease (a phase before the last: the host stays in
	// flight, in the next phase).
	keep bool
	// moved names the hosts whose success was recorded (the phases move only those on).
	moved map[string]bool
	// walkPhases and walkEnd replace the kubelet step's phases and upgraded-kubelet (abort
	// --kubelets: state.AbortKubeletPhases, then idle); entry, when it names a host, is the
	// phase it enters.
	walkPhases []state.HostStatus
	walkEnd    state.HostStatus
	entry      map[string]state.HostStatus
	// joined: the state is already the step's running state and the lease this process's (abort
	// goes on from one host's kubelet to the next, then to the restore): begin takes nothing,
	// and every host of it starts as the batch's other hosts do.
	joined bool
}

func (o *op) perHost() bool { return len(o.hosts) > 0 && !o.clusterOnly }

// names are the hosts of o by their exact inventory names: handed to the runner as a list, never
// as a --limit pattern, in which an IPv6 literal's ':' would split the name.
func (o *op) names() []string {
	names := make([]string, len(o.hosts))
	for i, h := range o.hosts {
		names[i] = h.Name
	}
	return names
}

// label lists the hosts of o for people and for the lease's operation.
func (o *op) label() string { return strings.Join(o.names(), ",") }

func (o *op) operation() string {
	if len(o.hosts) == 0 {
		return o.step.Name
	}
	return o.step.Name + "@" + o.label()
}

// execute runs o: see the package comment for what it guarantees.
func (o *op) execute(ctx context.Context) error {
	w := o.w
	before, err := o.reach(ctx)
	if err != nil {
		return w.failBefore(ctx, o.step, err) // each host's failure, recorded
	}
	if o.before != "" && len(o.hosts) == 1 && before[o.hosts[0].Name] != nil {
		o.vars[o.before] = before[o.hosts[0].Name].Map()
	}
	acquired := time.Now() // the lease counts from when its acquisition was sent
	if err := o.begin(ctx, before); err != nil {
		return err
	}
	// The lease is renewed until the outcome is recorded; a database that cannot vouch for it
	// only stops new tasks from starting (Gate), never the one running.
	k := Keep(ctx, w.Store, w.Cluster, w.owner(), w.ttl(), w.recordFor(), acquired)
	fence, fenceErr := o.fence(ctx)
	if o.phased {
		err = o.walk(ctx, fence, fenceErr, k.Gate, before)
	} else {
		err = o.finish(ctx, o.play(ctx, fence, fenceErr, k.Gate), before)
	}
	// A renewal racing the final write that released the lease finds it gone: that is no loss
	// when every outcome was recorded.
	if lost := k.Stop(); lost != nil && err != nil && !allRecorded(err) {
		// Someone else failed or took over the operation: its outcome stands, ours was refused.
		return &StepError{Step: o.step.Name, Host: o.label(), State: o.step.Running,
			Cause: fmt.Errorf("%w (this run's outcome was not recorded over it: %v)", lost, err), Retry: "kupgrade upgrade show"}
	}
	return err
}

// play runs o's playbook (its tags) on o's hosts under fence, then o's verification, and returns
// each host's failure (state.WholeCluster's for a step without host statuses). fenceErr, the
// fence's own failure, fails every host without running anything.
func (o *op) play(ctx context.Context, fence *runner.Fence, fenceErr error, gate func(context.Context) error) map[string]*hostFailure {
	w := o.w
	var recap *runner.Recap
	playErr := fenceErr
	po := runner.PlayOptions{Hosts: o.names(), Tags: o.tags, ExtraVars: o.vars, Gate: gate, Fence: fence}
	if playErr == nil && o.pre != nil { // its pre-play work (the etcd snapshot), under the same fence
		playErr = o.pre(ctx, po)
	}
	if playErr == nil && o.pb != nil { // complete runs no playbook, only its check
		recap, playErr = w.Runner.Play(ctx, o.pb, w.Inventory, po)
	}
	if playErr == nil && o.post != nil {
		playErr = o.post(ctx, po)
	}
	failed := hostFailures(o, recap, playErr)
	for _, h := range o.hosts {
		if o.perHost() && failed[h.Name] == nil && o.verify != nil {
			var reg map[string]any
			if recap != nil {
				reg = recap.Registered[h.Name]
			}
			if err := o.verify(ctx, h, reg); err != nil {
				failed[h.Name] = &hostFailure{err: err}
			}
		}
	}
	if !o.perHost() && len(failed) == 0 && o.check != nil {
		if err := o.check(ctx); err != nil {
			failed[state.WholeCluster] = &hostFailure{err: err}
		}
	}
	if ctx.Err() != nil { // interrupted: the failure is recorded below, and the cause says so
		for name, f := range failed {
			f.err = fmt.Errorf("interrupted: %w", errors.Join(context.Canceled, f.err))
			failed[name] = f
		}
		if len(failed) == 0 && !o.perHost() {
			failed[state.WholeCluster] = &hostFailure{err: fmt.Errorf("interrupted: %w", context.Canceled)}
		}
	}
	return failed
}

// fence is the host fence for the playbook of every step, stamped with the lease begin has just
// taken. Every root command a step runs on a host (kubeadm; the kubelet's install and restart;
// kubectl cordon, drain and uncordon; the abort's restore) runs under it: no two of them ever
// overlap on a host, even when this process lost its lease to another while its kubeadm still
// runs, none starts once a newer operation has run on the host, and no other cluster's command
// runs on a host within a lease's TTL of this one's last command, nor another upgrade of this
// cluster (told by its kube-system UID, clusterUID) that another database records. The lease's generation is
// read back rather than assumed: a lease that is no longer ours fails the step before it runs.
func (o *op) fence(ctx context.Context) (*runner.Fence, error) {
	w := o.w
	var u state.Upgrade
	var l *state.Lease
	// A database blip here would fail a step that has not touched a host yet: read on, for as
	// long as a final write would.
	rctx, cancel := context.WithTimeout(ctx, w.recordFor())
	defer cancel()
	err := w.retryDB(rctx, "read the lease for the host fence", func(ctx context.Context) error {
		var err error
		if u, err = w.Store.Upgrade(ctx, w.Cluster); err != nil {
			return err
		}
		l, err = w.Store.Lease(ctx, w.Cluster)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the upgrade and its lease for the host fence: %w", err)
	}
	if l == nil || l.Owner != w.owner() {
		return nil, errors.New("the lease was taken over before the playbook started")
	}
	return &runner.Fence{Cluster: w.Cluster, ClusterUID: w.clusterUID(ctx), Database: w.Database, Key: u.UUID, Generation: l.Generation,
		Owner: w.owner(), Wait: w.fenceWait(), Claim: w.ttl()}, nil
}

// reach connects to every host of o at once (unreachable hosts are refused before anything is
// written: exit 5) and, for a kubeadm step, records each one's kubelet config and manifests.
func (o *op) reach(ctx context.Context) (map[string]*kubeadm.Snapshot, error) {
	w := o.w
	snaps := make([]*kubeadm.Snapshot, len(o.hosts))
	errs := make([]error, len(o.hosts))
	var wg sync.WaitGroup
	for i, h := range o.hosts {
		wg.Go(func() {
			c, err := w.Runner.Conn(ctx, h)
			if err != nil {
				errs[i] = onHost(h.Name, err)
				return
			}
			if o.kubeadm {
				snap, err := w.probe(ctx, c)
				if err != nil {
					errs[i] = onHost(h.Name, fmt.Errorf("probe %s before %s: %w", h.Name, o.step.Name, err))
					return
				}
				snaps[i] = &snap
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	before := make(map[string]*kubeadm.Snapshot, len(o.hosts))
	for i, h := range o.hosts {
		before[h.Name] = snaps[i]
	}
	return before, nil
}

// begin moves the state into flight and takes the lease, in one transaction per host.
func (o *op) begin(ctx context.Context, before map[string]*kubeadm.Snapshot) error {
	w := o.w
	reason := "start " + o.operation()
	lease := state.LeaseSpec{Owner: w.owner(), Operation: o.operation(), TTL: w.ttl()}
	if !o.perHost() && o.joined {
		return nil
	}
	if !o.perHost() {
		_, err := w.Store.Apply(ctx, state.Start(w.Cluster, state.ActorRunner, o.from, o.step.Running, lease, state.Because(reason), state.AtHop(o.hop)))
		if err == nil {
			w.stateChanged(state.WholeCluster, o.from, o.step.Running, reason)
		}
		return err
	}
	for i, h := range o.hosts {
		from, to := o.hostFrom[h.Name], o.hostTo
		if o.phased { // a retry starts where it stopped
			to = o.entryOf(h.Name)
		}
		opts := []state.ChangeOption{state.Because(reason), state.OnHost(h.Name, from, to), state.WithTarget(o.target), state.AtHop(o.hop)}
		if snap := before[h.Name]; snap != nil {
			// recover and watch compare the host with this after a crash of this process.
			ev, err := json.Marshal(recovery.Evidence{Before: snap})
			if err != nil {
				return fmt.Errorf("encode snapshot of %s: %w", h.Name, err)
			}
			opts = append(opts, state.WithEvidence(ev))
			// abort restores from what this records: a controller's before its control plane,
			// a worker's (its config.yaml, which kubeadm upgrade node rewrites) before its kubelet.
			worker := o.hostTo == state.UpgradingKubelet && state.Personality(h.Personality()) != state.Controller
			if o.hostTo == state.UpgradingControlPlane || worker {
				opts = append(opts, state.WithBackupsBefore(backupsBefore(snap)))
			}
		}
		c := state.Start(w.Cluster, state.ActorRunner, o.from, o.step.Running, lease, opts...)
		if i > 0 || o.joined { // the batch's other hosts: the state is already in flight and the lease ours
			c = state.StartHost(w.Cluster, state.ActorRunner, o.step.Running, w.owner(), opts...)
		}
		if _, err := w.Store.Apply(ctx, c); err != nil {
			if i > 0 { // give back what the first hosts took, through the one failing path
				o.failHosts(ctx, o.hosts[:i], fmt.Errorf("could not start the batch: %w", err))
			}
			return err
		}
		w.stateChanged(h.Name, c.From(), c.To(), fmt.Sprintf("%s: %s -> %s", h.Name, from, to))
	}
	return nil
}

// failHosts records the failure of hosts that never ran (a batch that could not start).
func (o *op) failHosts(ctx context.Context, hosts []*inventory.Host, cause error) {
	w := o.w
	dctx, cancel := detached(ctx)
	defer cancel()
	for i, h := range hosts {
		_, _ = recovery.Fail(dctx, w.Store, recovery.Request{
			Cluster: w.Cluster, Actor: state.ActorRunner, Reason: cause.Error(), Host: h.Name,
			Expect: o.step.Running, LeaseOwner: w.owner(),
			KeepLease: i < len(hosts)-1, Evidence: &recovery.Evidence{Step: o.step.Name, Host: h.Name, Error: cause.Error()},
		})
	}
}

// allRecorded reports whether err (finish's, a join of one error per host) holds only failures
// that the store recorded.
func allRecorded(err error) bool {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var se *StepError
		if !errors.As(e, &se) || !se.Recorded {
			return false
		}
	}
	return true
}
