package recovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// Store is the slice of state.Store that recovery uses.
type Store interface {
	Upgrade(ctx context.Context, cluster string) (state.Upgrade, error)
	Hosts(ctx context.Context, cluster string) ([]state.Host, error)
	Lease(ctx context.Context, cluster string) (*state.Lease, error)
	Apply(ctx context.Context, c state.Change) (state.Upgrade, error)
	Events(ctx context.Context, cluster string, limit int) ([]state.Event, error)
	Now() time.Time
}

// Request says which operation to fail, who fails it and why.
type Request struct {
	Cluster string
	Actor   state.Actor // state.ActorRunner, ActorCLI, ActorRecover, ActorWatch
	Reason  string
	// Host is the host that was being worked on. When empty, Fail takes the host whose status is
	// in flight (there is at most one outside upgrading-kubelets).
	Host string
	// Expect, when set, is the state the caller read; Fail refuses with a conflict if the state
	// is anything else by the time it writes (the audit uses it so that it never fails an
	// operation that moved on after it looked).
	Expect state.State
	// LeaseOwner is set by the runner that holds the lease and is recording its own failure.
	LeaseOwner string
	// Force fails the operation even though another owner holds a live lease (recover --force).
	Force bool
	// Evidence is stored as JSON in the event row (exit status, output tail, probe finding).
	Evidence *Evidence
	// KeepLease leaves the lease with its owner: a kubelet batch records its hosts one by one,
	// and only the last write releases the lease, so that no host is in flight without one.
	KeepLease bool
}

// Result tells what Fail did.
type Result struct {
	NoOp       bool // the state was already failed and no host was in flight: nothing written
	FromState  state.State
	ToState    state.State
	Host       string
	HostStatus state.HostStatus // the host status that was failed (it is now HostStatus.FailedTo())
	Upgrade    state.Upgrade    // as written
}

// Fail fails the in-flight operation of req.Cluster through the one path of docs/states.md.
func Fail(ctx context.Context, st Store, req Request) (Result, error) {
	// Failing needs the state, the lease's liveness and the hosts' statuses: a time of the
	// upgrade or host rows that cannot be read (ErrBadRow) decides nothing, and is rewritten by
	// the change of state.
	u, err := st.Upgrade(ctx, req.Cluster)
	if err != nil && !errors.Is(err, state.ErrBadRow) {
		return Result{}, err
	}
	if req.Expect != "" && u.State != req.Expect {
		return Result{}, fmt.Errorf("fail %s: the state is now %s: %w", req.Expect, u.State, state.ErrConflict)
	}
	if !u.State.Valid() {
		return Result{}, fmt.Errorf("fail cluster %s: %w", req.Cluster, notAState(req.Cluster, u.State))
	}
	if req.LeaseOwner == "" && !req.Force { // Apply checks it again, in its transaction
		if err := notLive(ctx, st, u, req.Cluster); err != nil {
			return Result{}, err
		}
	}
	hosts, err := st.Hosts(ctx, req.Cluster)
	if err != nil && !errors.Is(err, state.ErrBadRow) {
		return Result{}, err
	}
	host, status := workedOn(hosts, req.Host, u.State)
	to, inFlight := u.State.FailedTwin()
	switch {
	case inFlight:
	case u.State == state.UpgradingKubelets && status.InFlight():
		to = u.State // the cluster stays in upgrading-kubelets; only the host is failed
	case status.InFlight():
		to = u.State // a host status left behind by a settled or failed state (hand edit, older tool)
	case u.State.Failed() || u.State == state.UpgradingKubelets:
		return Result{NoOp: true, FromState: u.State, ToState: u.State, Upgrade: u}, nil
	default:
		return Result{}, fmt.Errorf("state %s is not in flight, there is nothing to fail: %w", u.State, state.ErrRefused)
	}
	c, err := failChange(req, u.State, to, host, status)
	if err != nil {
		return Result{}, err
	}
	after, err := st.Apply(ctx, c)
	if err != nil {
		return Result{}, fmt.Errorf("fail %s: %w", u.State, err)
	}
	return Result{FromState: u.State, ToState: to, Host: host, HostStatus: status, Upgrade: after}, nil
}

// notLive refuses while the cluster's lease is live, or cannot be read: nobody can tell then
// whether its holder still works, and only --force (which deletes it) may overrule that.
func notLive(ctx context.Context, st Store, u state.Upgrade, cluster string) error {
	l, err := st.Lease(ctx, cluster)
	if errors.Is(err, state.ErrBadRow) {
		holder := "its holder"
		if l != nil {
			holder = l.Owner
		}
		return fmt.Errorf("fail %s of cluster %s: %w; if %s is gone, pass --force, which deletes that lease: %w",
			u.State, cluster, err, holder, state.ErrConflict)
	}
	if err != nil {
		return err
	}
	if now := st.Now(); l.Live(now) {
		return fmt.Errorf("fail %s of cluster %s: %s; if that process is gone, wait for the lease to expire or pass --force: %w",
			u.State, cluster, l.Holder(now), state.ErrConflict)
	}
	return nil
}

// workedOn finds the host the in-flight operation is about: the named one, else the one whose
// status is in flight. In upgrading-kubelets only a host in flight counts, even when named.
func workedOn(hosts []state.Host, name string, s state.State) (string, state.HostStatus) {
	for _, h := range hosts {
		if name != "" && h.Hostname != name {
			continue
		}
		if s == state.UpgradingKubelets && !h.Status.InFlight() {
			continue
		}
		if h.Status.InFlight() || name != "" {
			return h.Hostname, h.Status
		}
	}
	return "", state.HostIdle
}

// failChange is the Change that fails from into to under the lease condition req asks for,
// moving host (when there is one) to its status's failed twin (idle for most).
func failChange(req Request, from, to state.State, host string, status state.HostStatus) (state.Change, error) {
	opts := []state.ChangeOption{state.Because(req.Reason)}
	if req.Evidence != nil {
		ev, err := json.Marshal(req.Evidence)
		if err != nil {
			return state.Change{}, fmt.Errorf("encode evidence: %w", err)
		}
		opts = append(opts, state.WithEvidence(ev))
	}
	if host != state.WholeCluster {
		opts = append(opts, state.OnHost(host, status, status.FailedTo()))
	}
	if req.KeepLease {
		opts = append(opts, state.KeepLease())
	}
	if req.Actor == state.ActorRecover || req.Actor == state.ActorWatch {
		opts = append(opts, state.CountRecovery())
	}
	cond := state.NotLive()
	switch {
	case req.LeaseOwner != "":
		cond = state.HeldBy(req.LeaseOwner)
	case req.Force:
		cond = state.Forced()
	}
	return state.Fail(req.Cluster, req.Actor, from, to, cond, opts...), nil
}
