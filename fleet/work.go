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
func (r *Runner) work(ctx context.Context, c state.Claim, t Target, o Options) Result {
	start := time.Now()
	res := Result{Cluster: c.Cluster, TakenFrom: c.TakenFrom}
	log := r.log().With("cluster", c.Cluster)
	if c.TakenFrom != "" {
		log.Warn("took over the expired claim of another runner", "from", c.TakenFrom, "generation", c.Generation)
	}
	k := upgrade.Keep(ctx, claimRenewer{r.Store}, c.Cluster, r.Owner, o.TTL, o.TTL)
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
	case res.Err != nil:
		outcome, msg = state.FleetFailed, res.Err.Error()
	}
	if err := r.Store.FinishClaim(dctx, c.Cluster, r.Owner, c.Generation, outcome, msg); err != nil {
		res.Outcome, res.Err = "lost", errors.Join(res.Err, err)
		return res
	}
	res.Outcome = outcome
	if outcome == state.FleetPending {
		res.Outcome = "lost"
	}
	return res
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
