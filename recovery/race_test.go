package recovery_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// succeed is what the runner writes when its control-plane step worked.
func succeed(ctx context.Context, st state.Store, cluster, owner string) error {
	_, err := st.Apply(ctx, state.Finish(cluster, state.ActorRunner, state.UpgradingSecondMaster, state.UpgradedSecondMaster, owner,
		state.OnHost("controller-2", state.UpgradingControlPlane, state.HostIdle), state.ReleaseLease(),
		state.Because("done control-plane on controller-2")))
	return err
}

// racingStore lets the runner's success land between the audit's read and its write.
type racingStore struct {
	*sqlite.Store
	once sync.Once
	hook func()
}

func (r *racingStore) InFlight(ctx context.Context) ([]state.InFlightOp, []state.BadRow, error) {
	ops, bad, err := r.Store.InFlight(ctx)
	r.once.Do(r.hook)
	return ops, bad, err
}

// The runner finishes after the audit read the expired lease: the audit must write nothing.
func TestAuditLosesToRunnerThatFinishedAfterTheRead(t *testing.T) {
	f := recoverytest.New(t)
	f.Start(t, "default")
	f.Move(t, "default", state.UpgradingSecondMaster, "controller-2", state.UpgradingControlPlane, "slow:1:z", 30*time.Second)
	f.Clk.Add(time.Minute) // the runner missed its heartbeats but is still alive
	rs := &racingStore{Store: f.St, hook: func() {
		if err := succeed(t.Context(), f.St, "default", "slow:1:z"); err != nil {
			t.Errorf("runner's success: %v", err)
		}
	}}
	rep, err := recovery.Audit(t.Context(), rs, recovery.AuditOptions{})
	if err != nil {
		t.Fatalf("audit: %v (a lost compare-and-set is not an error)", err)
	}
	if len(rep.Actions) != 1 || rep.Actions[0].Outcome != recovery.OutcomeMovedOn {
		t.Fatalf("actions %+v, want one moved-on", rep.Actions)
	}
	if u := f.Upgrade(t, "default"); u.State != state.UpgradedSecondMaster {
		t.Errorf("state %s, want the runner's upgraded-second-master", u.State)
	}
	if ev := f.Events(t, "default")[0]; ev.Actor != state.ActorRunner {
		t.Errorf("newest event by %s, want the runner's", ev.Actor)
	}
}

// The audit and a runner's own success race for real, many times: whoever commits first wins,
// and the loser writes nothing. Never the failed twin after the success.
func TestAuditRacingRunnerSuccessNeverOverwritesIt(t *testing.T) {
	const n = 200
	f := recoverytest.New(t)
	wins := map[state.State]int{}
	for i := range n {
		cluster := fmt.Sprintf("race-%03d", i)
		owner := "runner:" + cluster
		f.Start(t, cluster)
		f.Move(t, cluster, state.UpgradingSecondMaster, "controller-2", state.UpgradingControlPlane, owner, -time.Millisecond)

		var runErr, auditErr error
		var wg sync.WaitGroup
		go0 := make(chan struct{})
		wg.Add(2)
		go func() { defer wg.Done(); <-go0; runErr = succeed(t.Context(), f.St, cluster, owner) }()
		go func() {
			defer wg.Done()
			<-go0
			_, auditErr = recovery.Audit(t.Context(), f.St, recovery.AuditOptions{})
		}()
		close(go0)
		wg.Wait()
		if auditErr != nil {
			t.Fatalf("%s: audit: %v", cluster, auditErr)
		}

		u := f.Upgrade(t, cluster)
		wins[u.State]++
		evs := f.Events(t, cluster) // newest first
		switch u.State {
		case state.UpgradedSecondMaster:
			if runErr != nil {
				t.Fatalf("%s: state is the success but the runner got %v", cluster, runErr)
			}
		case state.UpgradingSecondMasterFailed:
			if !isConflict(runErr) {
				t.Fatalf("%s: the audit won but the runner got %v, want a conflict", cluster, runErr)
			}
		default:
			t.Fatalf("%s: state %s", cluster, u.State)
		}
		if evs[0].ToState != u.State {
			t.Fatalf("%s: newest event goes to %s, state is %s", cluster, evs[0].ToState, u.State)
		}
		outcomes := 0
		for _, ev := range evs {
			if ev.FromState == state.UpgradingSecondMaster && ev.ToState != state.UpgradingSecondMaster {
				outcomes++
			}
		}
		if outcomes != 1 {
			t.Fatalf("%s: %d events record an outcome, want exactly one: %+v", cluster, outcomes, evs)
		}
		if s := f.Status(t, cluster, "controller-2"); s != state.HostIdle {
			t.Fatalf("%s: controller-2 status %q after the race", cluster, s)
		}
	}
	t.Logf("%d races: %v", n, wins)
}
