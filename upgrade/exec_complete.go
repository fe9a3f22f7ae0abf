package upgrade

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/state"
)

// DefaultVerifyTimeout is how long complete waits, by default, for the cluster to report the
// upgrade done (--verify-timeout).
const DefaultVerifyTimeout = 2 * time.Minute

// verifyEvery is how often complete asks the API server again while the cluster catches up.
const verifyEvery = 2 * time.Second

// completeExec runs complete (state.ScopeVerify): once every kubelet is recorded upgraded, it
// enters upgrade-completing under the lease and asks the API server, from the first controller,
// until it is ready, every node reports the target kubelet and is Ready, and every control-plane
// pod runs the target; then it writes upgrade-complete, clearing every host status. When the
// cluster does not say so within VerifyTimeout the step fails to upgrade-completing-failed,
// naming the nodes and pods and what they report; the same command retries it.
type completeExec struct{}

func (completeExec) where(step state.Step, act Action, _ []string) ([]string, error) {
	return nil, noHosts(step, act)
}

func (completeExec) check(_ state.Step, _ Action, in view, v *verdict) error {
	if err := v.add("lease free", "", state.CheckLease(in.u, in.lease, in.now), ""); err != nil {
		return err
	}
	return v.add("every kubelet upgraded", "", state.CheckComplete(in.u, in.hosts), "then the cluster must report it")
}

func (e completeExec) run(ctx context.Context, w *Workflow, step state.Step, act Action) error {
	cs, err := w.controllerHosts()
	if err != nil {
		return err
	}
	in, _, err := w.checked(ctx, e, step, act)
	if err != nil {
		return err
	}
	to, err := state.ParseVersion(in.u.Target())
	if err != nil {
		return err
	}
	return (&op{w: w, step: step, from: in.u.State, hop: in.u.Hop, hosts: cs[:1], clusterOnly: true,
		check: func(ctx context.Context) error { return w.verifyComplete(ctx, cs[0], to) }}).execute(ctx)
}

// after: complete clears every host status, as next-hop does.
func (completeExec) after(step state.Step, act Action, in view) view {
	return storeExec{}.after(step, act, in)
}

// verifyComplete asks the API server on h, every verifyEvery for at most VerifyTimeout, whether
// the cluster reports the upgrade to done; the error names every check that still fails, with
// the nodes and pods it names.
func (w *Workflow) verifyComplete(ctx context.Context, h *inventory.Host, to state.Version) error {
	return w.awaitCluster(ctx, h, "Ask the API server whether every node and control-plane pod runs "+to.String(), to,
		func(out string) []health.Result { return health.JudgeComplete(out, to) })
}

// awaitCluster runs health.CompleteScript on h, every verifyEvery for at most VerifyTimeout,
// until judge finds nothing failing in its output; the error names every check that still
// fails, with the objects it names.
func (w *Workflow) awaitCluster(ctx context.Context, h *inventory.Host, task string, to state.Version, judge func(string) []health.Result) error {
	deadline := time.Now().Add(w.verifyFor())
	for {
		out, err := w.execScript(ctx, h, task, health.CompleteScript)
		var failed []health.Result
		if err == nil {
			failed = health.Failed(judge(out))
		}
		if err == nil && len(failed) == 0 {
			return nil
		}
		wait := min(verifyEvery, time.Until(deadline))
		if wait <= 0 || ctx.Err() != nil {
			return notComplete(h.Name, to, w.verifyFor(), err, failed)
		}
		w.log().Info("the cluster does not report it yet, asking again", "host", h.Name, "task", task, "failing", len(failed), "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// notComplete is the verification's failure: what the API server on host last said.
func notComplete(host string, to state.Version, waited time.Duration, err error, failed []health.Result) error {
	if err != nil {
		return fmt.Errorf("the cluster could not be asked whether it runs %s (on %s, for %s): %w", to, host, waited, err)
	}
	lines := make([]string, len(failed))
	for i, r := range failed {
		lines[i] = r.String()
	}
	return fmt.Errorf("the cluster does not report %s after %s (asked on %s): %s", to, waited, host, strings.Join(lines, "; "))
}

func (w *Workflow) verifyFor() time.Duration {
	if w.VerifyTimeout > 0 {
		return w.VerifyTimeout
	}
	return DefaultVerifyTimeout
}
