package upgrade

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
)

// Prober returns the prober `recover` uses, over this workflow's runner: it reads a host's
// kubelet config and manifests and compares them with the target (a recover after a crash has
// no snapshot from before).
func (w *Workflow) Prober() recovery.Prober { return workflowProber{w} }

type workflowProber struct{ w *Workflow }

func (p workflowProber) Probe(ctx context.Context, host, target string) (kubeadm.Finding, error) {
	h, err := p.w.host(host)
	if err != nil {
		return kubeadm.Finding{}, err
	}
	c, err := p.w.Runner.Conn(ctx, h)
	if err != nil {
		return kubeadm.Finding{}, err
	}
	after, err := p.w.probe(ctx, c)
	if err != nil {
		return kubeadm.Finding{}, err
	}
	return kubeadm.Classify(kubeadm.Snapshot{}, after, target), nil
}

// ResumeOptions are what a fleet runner asks of one cluster: `upgrade run` from whatever state
// the cluster is in.
type ResumeOptions struct {
	RunOptions
	To     string          // the target version
	Health *health.Options // the health checks before a new upgrade starts (nil: none)
}

// Resume carries the cluster to opts.To from any state, as `upgrade run` would after whatever
// came before: it starts the upgrade when there is none (reading the versions over SSH), starts
// a new one when the last ended at another version, fails through `recover` an operation left in
// flight by a process that died (waiting, up to twice the lease TTL, for its lease to expire),
// then runs every remaining step.
func (w *Workflow) Resume(ctx context.Context, opts ResumeOptions) error {
	u, err := w.Store.Upgrade(ctx, w.Cluster)
	switch {
	case errors.Is(err, state.ErrNotFound):
		if err := w.resumeHealth(ctx, opts); err != nil {
			return err
		}
		if _, err := w.Start(ctx, opts.To, "", false); errors.Is(err, state.ErrNothingToUpgrade) {
			return w.alreadyAt(ctx, opts.To, err)
		} else if err != nil {
			return fmt.Errorf("start the upgrade to %s: %w", opts.To, err)
		}
		if err := w.recordSkips(ctx, opts.Health); err != nil {
			return err
		}
	case err != nil:
		return err
	case u.ToVersion != opts.To:
		if err := w.resumeHealth(ctx, opts); err != nil {
			return err
		}
		if err := w.restart(ctx, u, opts.To); err != nil {
			return err
		}
		if err := w.recordSkips(ctx, opts.Health); err != nil {
			return err
		}
	default:
		if err := w.recoverStuck(ctx); err != nil {
			return err
		}
	}
	if opts.HopHealth == nil {
		opts.HopHealth = opts.Health // the same checks before each hop
	}
	return w.Run(ctx, opts.RunOptions)
}

// alreadyAt ends the resume of a cluster with no upgrade whose control plane is already at to
// (upgraded before this database knew it, by hand or by another tool): nothing to do when every
// kubelet is at to as well; else refused, naming the kubelets that are not (refused is start's
// error, the control plane's).
func (w *Workflow) alreadyAt(ctx context.Context, to string, refused error) error {
	vs, err := w.ReadVersions(ctx, w.Inventory.Nodes(), false)
	if err != nil {
		return fmt.Errorf("start the upgrade to %s: %w; and the kubelets' versions could not be read: %w", to, refused, err)
	}
	var behind []string
	for _, h := range w.Inventory.Nodes() {
		if v := vs[h.Name].Kubelet; v != to {
			behind = append(behind, fmt.Sprintf("%s (kubelet %s)", h.Name, cmp.Or(v, "unknown")))
		}
	}
	if len(behind) > 0 {
		return fmt.Errorf("start the upgrade to %s: %w; but not every kubelet is: %s: upgrade those kubelets, then run this again",
			to, refused, strings.Join(behind, ", "))
	}
	w.log().Info("the cluster is already at the target, every kubelet too: nothing to do", "to", to)
	return nil
}

// restart replaces an ended upgrade to another version by one to to; an upgrade still under way
// to another version is refused. Every check of the new upgrade's versions (a downgrade, a jump)
// is made before the ended upgrade is deleted: a refused target leaves its record as it was.
func (w *Workflow) restart(ctx context.Context, u state.Upgrade, to string) error {
	if !slices.Contains(state.DeletableStates(), u.State) {
		return fmt.Errorf("cluster %s is upgrading to %s (state %s), not to %s: finish or abort that upgrade first: %w",
			w.Cluster, u.ToVersion, u.State, to, state.ErrRefused)
	}
	nu, err := w.newUpgrade(ctx, to, "", false)
	if err != nil {
		return fmt.Errorf("cluster %s: its upgrade to %s ended (state %s), and a new one to %s is refused, so that upgrade is kept: %w",
			w.Cluster, u.ToVersion, u.State, to, err)
	}
	if err := w.Store.DeleteUpgrade(ctx, w.Cluster, u.State, state.ActorCLI, "fleet run: a new upgrade to "+to); err != nil {
		return err
	}
	if w.Deleted != nil {
		w.Deleted(w.Cluster, u.UUID)
	}
	_, err = w.Store.CreateUpgrade(ctx, nu)
	return err
}

// recoverStuck fails, with the probe's finding, an operation nobody runs any more; a live lease
// of another process is waited out.
func (w *Workflow) recoverStuck(ctx context.Context) error {
	deadline := time.Now().Add(2 * w.ttl())
	for {
		rec, err := recovery.Recover(ctx, w.Store, recovery.RecoverOptions{Cluster: w.Cluster, Prober: w.Prober()})
		if err == nil || !errors.Is(err, state.ErrConflict) || !time.Now().Before(deadline) {
			if err == nil && rec.Stuck {
				w.log().Warn("failed an operation left in flight", "state", rec.Before, "now", rec.After)
			}
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(w.ttl() / 10):
		}
	}
}
