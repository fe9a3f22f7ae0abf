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
	prior, err := r.Store.BeginClaim(ctx, c.Cluster, r.Owner, c.Generation)
	if err != nil {
		res.Outcome, res.Err = Lost, err // nothing ran: the claim expires, uncounted
		return res
	}
	if prior > maxHandBacks {
		return r.tooManyHandBacks(ctx, c, prior, res)
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
		res.Outcome = Lost
		res.Err = errors.Join(res.Err, lost)
		return res
	}
	if ctx.Err() != nil { // handed back uncounted: the next runner resumes it
		res.Outcome = Lost
		if err := r.Store.ReleaseClaim(dctx, c.Cluster, r.Owner, c.Generation, "interrupted"); err != nil {
			res.Err = errors.Join(res.Err, err)
		}
		return res
	}
	return r.record(dctx, c, prior, res, log)
}

// record writes the outcome of a run that ended on its own: done, failed, or handed back when
// the database failed under it and the cluster's hand-backs are below the limit.
func (r *Runner) record(ctx context.Context, c state.Claim, prior int, res Result, log *slog.Logger) Result {
	outcome, msg := state.FleetDone, ""
	switch {
	case res.Err != nil && handBack(res.Err, r.Store) && prior < maxHandBacks:
		outcome, msg = state.FleetPending, "handed back, the database failed under it: "+res.Err.Error()
		log.Warn("handed the cluster back: the database failed under it, not the cluster", "error", res.Err, "hand-backs", prior+1)
	case res.Err != nil:
		outcome, msg = state.FleetFailed, res.Err.Error()
	}
	if err := r.Store.FinishClaim(ctx, c.Cluster, r.Owner, c.Generation, outcome, msg); err != nil {
		res.Outcome, res.Err = Lost, errors.Join(res.Err, err) // this run stays counted
		return res
	}
	res.Outcome = outcome
	if outcome == state.FleetPending {
		res.Outcome = HandedBack
	}
	return res
}

// tooManyHandBacks counts failed, without running it, a cluster whose runs were handed back or
// never finished more than maxHandBacks times, by whichever runners: kubeadm is not run again
// under a database that keeps losing its outcome.
func (r *Runner) tooManyHandBacks(ctx context.Context, c state.Claim, prior int, res Result) Result {
	res.Err = fmt.Errorf("%w: cluster %s: %d runs of it were handed back or never finished (their outcome could not be recorded), more than %d: counted failed without running it again; `kupgrade fleet show` lists it, and the next fleet run retries it",
		errFailed, c.Cluster, prior, maxHandBacks)
	if err := r.Store.FinishClaim(ctx, c.Cluster, r.Owner, c.Generation, state.FleetFailed, res.Err.Error()); err != nil {
		res.Outcome, res.Err = Lost, errors.Join(res.Err, err)
		return res
	}
	res.Outcome = state.FleetFailed
	return res
}

// HandedBack is the outcome of a cluster given back to the fleet, still to do, because the
// database failed under its run: the next runner to claim it, this one included, resumes it.
const HandedBack state.FleetOutcome = "handed-back"

// Lost is the outcome of a cluster another runner took over: nothing of it is counted here.
const Lost state.FleetOutcome = "lost"

// maxHandBacks bounds the runs of one cluster that are handed back or never finished, counted
// in its fleet row across runners, before it is counted failed: a database that keeps failing
// under one cluster's run while the fleet's other reads and writes go through is no blip.
const maxHandBacks = 3

// handBack reports whether the cluster's run ended on the database rather than on the cluster:
// no step ran and failed (those are recorded, ErrFailed), and the error is the database's (lost
// connection, an abort, a commit whose outcome is unknown) or an outcome that could not be
// recorded (the state may still say in flight: the next run recovers it first, as `upgrade run`
// would).
func handBack(err error, st Store) bool {
	return !errors.Is(err, upgrade.ErrFailed) && (st.Unavailable(err) || errors.Is(err, upgrade.ErrNotRecorded))
}

func (r *Runner) resume(ctx context.Context, t Target, o Options, k *upgrade.Keeper, log *slog.Logger) error {
	w, closeConns, err := r.Open(t)
	if err != nil {
		return fmt.Errorf("open cluster %s: %w", t.Cluster, err)
	}
	defer closeConns()
	w.Owner, w.LeaseTTL = r.Owner, o.TTL
	log.Info("resume", "to", o.To)
	return w.Resume(ctx, upgrade.ResumeOptions{To: o.To, Health: o.Health, RunOptions: upgrade.RunOptions{
		Until: o.Until, Retries: o.Retries, WorkerBatch: o.WorkerBatch, Gate: k.Gate}})
}
