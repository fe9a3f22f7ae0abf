package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// errFailed is the class of ErrClustersFailed: the same as an operation that failed (exit 1).
var errFailed = upgrade.ErrFailed

// claimRenewer renews a claim the way upgrade.Keep renews a lease.
type claimRenewer struct{ st state.FleetStore }

func (c claimRenewer) RenewLease(ctx context.Context, cluster, owner string, ttl time.Duration) (state.Lease, error) {
	return c.st.RenewClaim(ctx, cluster, owner, ttl)
}

// work carries one claimed cluster as far as it goes, then records the outcome on the claim.
// sent is when the claim was asked for: it is valid for a TTL from then.
func (r *Runner) work(ctx context.Context, c state.Claim, t Target, o Options, sent time.Time) Result {
	start := time.Now()
	res := Result{Cluster: c.Cluster, TakenFrom: c.TakenFrom}
	log := r.log().With("cluster", c.Cluster)
	if c.TakenFrom != "" {
		log.Warn("took over the expired claim of another runner", "from", c.TakenFrom, "generation", c.Generation)
	}
	k := upgrade.Keep(ctx, claimRenewer{r.Store}, c.Cluster, r.Owner, o.TTL, o.TTL, sent)
	res.Err = r.resume(ctx, t, o, k, log)
	lost := k.Stop()
	res.Took = time.Since(start)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
	defer cancel()
	if u, err := r.Store.Upgrade(dctx, c.Cluster); err == nil {
		res.State = u.State
	}
	if lost != nil {
		res.Outcome = "lost"
		res.Err = errors.Join(res.Err, lost)
		return res
	}
	outcome, msg := state.FleetDone, ""
	switch {
	case ctx.Err() != nil:
		outcome, msg = state.FleetPending, "interrupted" // handed back: the next runner resumes it
	case res.Err != nil && r.handBack(c.Cluster, res.Err):
		outcome, msg = state.FleetPending, "handed back, the database failed under it: "+res.Err.Error()
		log.Warn("handed the cluster back: the database failed under it, not the cluster", "error", res.Err)
	case res.Err != nil:
		outcome, msg = state.FleetFailed, res.Err.Error()
	}
	if err := r.Store.FinishClaim(dctx, c.Cluster, r.Owner, c.Generation, outcome, msg); err != nil {
		res.Outcome, res.Err = "lost", errors.Join(res.Err, err)
		return res
	}
	res.Outcome = outcome
	switch {
	case outcome == state.FleetPending && ctx.Err() == nil:
		res.Outcome = HandedBack
	case outcome == state.FleetPending:
		res.Outcome = "lost"
	}
	return res
}

// HandedBack is the outcome of a cluster given back to the fleet, still to do, because the
// database failed under its run: the next runner to claim it, this one included, resumes it.
const HandedBack = "handed-back"

// maxHandBacks bounds how often one runner hands one cluster back before it counts it failed: a
// database that keeps failing under one cluster's run while the fleet's other reads and writes
// go through is no blip.
const maxHandBacks = 3

// handBack reports whether the cluster's run ended on the database rather than on the cluster:
// no step ran and failed (those are recorded, ErrFailed), and the error is the database's (lost
// connection, an abort, a commit whose outcome is unknown) or an outcome that could not be
// recorded (the state may still say in flight: the next run recovers it first, as `upgrade run`
// would). Such a cluster is handed back, at most maxHandBacks times by this runner.
func (r *Runner) handBack(cluster string, err error) bool {
	if errors.Is(err, upgrade.ErrFailed) || !(r.Store.Unavailable(err) || errors.Is(err, upgrade.ErrNotRecorded)) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.handedBack == nil {
		r.handedBack = map[string]int{}
	}
	r.handedBack[cluster]++
	return r.handedBack[cluster] <= maxHandBacks
}

func (r *Runner) resume(ctx context.Context, t Target, o Options, k *upgrade.Keeper, log *slog.Logger) error {
	w, closeConns, err := r.Open(t)
	if err != nil {
		return fmt.Errorf("open cluster %s: %w", t.Cluster, err)
	}
	defer closeConns()
	w.Owner, w.LeaseTTL = r.Owner, o.TTL
	log.Info("resume", "to", o.To)
	return w.Resume(ctx, upgrade.ResumeOptions{To: o.To, RunOptions: upgrade.RunOptions{
		Until: o.Until, Retries: o.Retries, WorkerBatch: o.WorkerBatch, Gate: k.Gate}})
}
