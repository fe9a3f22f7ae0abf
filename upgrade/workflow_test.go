package upgrade_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

func TestRunWalksEveryStepInOrder(t *testing.T) {
	f := newFixture(t)
	u, err := f.w.Start(t.Context(), "v1.30.1", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if u.FromVersion != "v1.29.4" {
		t.Errorf("from_version read over SSH = %s, want v1.29.4", u.FromVersion)
	}
	if err := f.w.Run(t.Context(), upgrade.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	f.wantState(t, state.UpgradeComplete)
	want := []string{
		"download-images@controller-0:controller-1", "check-controllers@controller-0:controller-1",
		"control-plane@controller-0", "control-plane@controller-1",
	}
	want = append(want, kubeletPhases("controller-0", "controller-1", "worker-0")...)
	if got := f.c.played(); !slices.Equal(got, want) {
		t.Errorf("playbooks run:\n got %v\nwant %v", got, want)
	}
	for _, name := range []string{"controller-0", "controller-1", "worker-0"} {
		h := f.host(t, name)
		if h.KubeletVersion != "v1.30.1" || h.Status != state.HostIdle {
			t.Errorf("%s: kubelet %s status %q after complete", name, h.KubeletVersion, h.Status)
		}
	}
	if l, _ := f.st.Lease(t.Context(), "default"); l != nil {
		t.Errorf("lease left behind: %+v", l)
	}
}

// The seed: kubeadm fails late on controller-1, after rewriting config.yaml. The upgrade must
// end in the failed twin with the host status cleared and the evidence saying what happened,
// and the retry must be accepted.
func TestLateFailureIsRecordedAndRetried(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		if name != "control-plane" || limit != "controller-1" {
			return nil, nil, false
		}
		f.c.mu.Lock()
		f.c.snaps["controller-1"] = snapAt("v1.30.1", "sha-new", true)
		f.c.mu.Unlock()
		f.c.onPlay = nil // one-shot
		r := failed("controller-1", 1, "[upgrade] Backing up kubelet config file\nerror execution phase kubelet-config: boom\nTo see the stack trace of this error execute with --v=5 or higher\n")
		return r, r.Err(), true
	}
	err := f.w.Do(t.Context(), controlPlane("controller-1"))
	var se *upgrade.StepError
	if !errors.As(err, &se) || !errors.Is(err, upgrade.ErrFailed) {
		t.Fatalf("ControlPlane = %v, want a StepError", err)
	}
	f.wantState(t, state.UpgradingSecondMasterFailed)
	if h := f.host(t, "controller-1"); h.Status != state.HostIdle {
		t.Errorf("host status %q, want cleared", h.Status)
	}
	if se.Retry != "kupgrade host upgrade controller-1 control-plane" {
		t.Errorf("retry hint %q", se.Retry)
	}
	if se.Finding == nil || se.Finding.Class != "kubelet-config-rewritten" {
		t.Errorf("finding %+v, want kubelet-config-rewritten", se.Finding)
	}
	if got := se.Cause.Error(); got != `task "kubeadm upgrade" exited 1: error execution phase kubelet-config: boom` {
		t.Errorf("reason %q should name the task, the status and kubeadm's error line", got)
	}
	// The failure is recorded first; what the probe found follows as an event of its own.
	evs, err := f.st.Events(t.Context(), "default", 2)
	if err != nil || len(evs) != 2 {
		t.Fatalf("events: %v, %v", evs, err)
	}
	probed, failure := evs[0], evs[1]
	var evidence struct {
		ExitStatus int `json:"exit_status"`
		Finding    struct{ Class string }
	}
	if err := json.Unmarshal(failure.Evidence, &evidence); err != nil {
		t.Fatal(err)
	}
	if failure.Actor != state.ActorRunner || failure.FromHostStatus != state.UpgradingControlPlane ||
		failure.ToState != state.UpgradingSecondMasterFailed || evidence.ExitStatus != 1 {
		t.Errorf("failure event %+v evidence %s", failure, failure.Evidence)
	}
	if err := json.Unmarshal(probed.Evidence, &evidence); err != nil {
		t.Fatal(err)
	}
	if probed.Hostname != "controller-1" || probed.FromState != probed.ToState || evidence.Finding.Class != "kubelet-config-rewritten" {
		t.Errorf("probe event %+v evidence %s", probed, probed.Evidence)
	}
	if l, _ := f.st.Lease(t.Context(), "default"); l != nil {
		t.Errorf("the failure kept the lease: %+v", l)
	}
	if h := f.host(t, "controller-1"); h.ControlPlaneVersion != "v1.30.1" {
		t.Errorf("host list shows control plane %s; the probe found the manifests at v1.30.1", h.ControlPlaneVersion)
	}
	if err := f.w.Do(t.Context(), controlPlane("controller-1")); err != nil {
		t.Fatalf("retry: %v", err)
	}
	f.wantState(t, state.UpgradedSecondMaster)
}

// A wedged host whose probe never answers cannot eat the time meant for recording: the failure
// is written before the probe, and the probe gives up on its own budget.
func TestWedgedProbeDoesNotStopTheRecording(t *testing.T) {
	inBubble(t, func(t *testing.T, f *fixture) {
		f.at(t, state.UpgradedFirstMaster)
		f.w.ProbeFor = 200 * time.Millisecond
		probes := 0
		f.w.Probe = func(ctx context.Context, c runner.Conn) (kubeadm.Snapshot, error) {
			if probes++; probes == 1 { // the snapshot before kubeadm
				return f.c.probe(ctx, c)
			}
			<-ctx.Done() // the host hangs
			return kubeadm.Snapshot{}, ctx.Err()
		}
		f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
			r := failed("controller-1", 1, "error execution phase control-plane: boom\n")
			return r, r.Err(), true
		}
		err := f.w.Do(t.Context(), controlPlane("controller-1"))
		var se *upgrade.StepError
		if !errors.As(err, &se) || !se.Recorded || !errors.Is(err, upgrade.ErrFailed) {
			t.Fatalf("err = %v, want a recorded failure", err)
		}
		f.wantState(t, state.UpgradingSecondMasterFailed)
		if ev := f.lastEvent(t); !strings.Contains(string(ev.Evidence), "probe_error") {
			t.Errorf("newest event %s should say the probe failed", ev.Evidence)
		}
	})
}

// A database that fails the final write (a restart, a failover) is retried until it answers:
// the outcome is recorded, not left in flight.
func TestFinalWriteIsRetried(t *testing.T) {
	inBubble(t, func(t *testing.T, f *fixture) {
		f.at(t, state.UpgradedFirstMaster)
		fs := &flakyStore{Store: f.st}
		f.w.Store = fs
		f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
			fs.failApplies.Store(3)
			return nil, nil, false
		}
		if err := f.w.Do(t.Context(), controlPlane("controller-1")); err != nil {
			t.Fatalf("the success must be recorded once the database answers: %v", err)
		}
		f.wantState(t, state.UpgradedSecondMaster)
		if n := fs.failApplies.Load(); n != 0 {
			t.Errorf("%d injected failures left: the write was not retried", n)
		}
	})
}

// Ctrl-C while kubeadm runs: the failure is recorded under a detached context, and the error
// says it was an interruption (exit 130).
func TestInterruptRecordsTheFailure(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	ctx, cancel := context.WithCancel(t.Context())
	f.c.onPlay = func(pctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		cancel()
		<-pctx.Done()
		return &runner.Recap{}, pctx.Err(), true
	}
	err := f.w.Do(ctx, controlPlane("controller-1"))
	if !errors.Is(err, context.Canceled) || !errors.Is(err, upgrade.ErrFailed) {
		t.Fatalf("err = %v, want a failed operation caused by the interruption", err)
	}
	f.wantState(t, state.UpgradingSecondMasterFailed)
	if h := f.host(t, "controller-1"); h.Status != state.HostIdle {
		t.Errorf("host status %q after interrupt", h.Status)
	}
}

// Someone fails the operation while it runs (recover --force): the runner notices at its next
// renewal and starts no new task, but never interrupts the one running (kubeadm runs to its
// end); it then does not write over the other's record.
func TestLostLeaseClosesTheGateWithoutCancelling(t *testing.T) {
	inBubble(t, func(t *testing.T, f *fixture) {
		f.at(t, state.UpgradedFirstMaster)
		f.w.LeaseTTL = 150 * time.Millisecond
		f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
			if _, err := recovery.Fail(context.Background(), f.st, recovery.Request{Cluster: "default",
				Actor: state.ActorRecover, Reason: "forced", Force: true}); err != nil {
				t.Errorf("forced fail: %v", err)
			}
			f.c.mu.Lock()
			gate := f.c.gate
			f.c.mu.Unlock()
			deadline := time.Now().Add(10 * time.Second)
			for gate(ctx) == nil && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if err := gate(ctx); err == nil || !errors.Is(err, state.ErrConflict) {
				t.Errorf("gate after the lease was lost = %v, want the conflict that lost it", err)
			}
			if ctx.Err() != nil {
				t.Errorf("the running task was cancelled because the lease was lost: %v", ctx.Err())
			}
			return &runner.Recap{}, nil, true
		}
		err := f.w.Do(t.Context(), controlPlane("controller-1"))
		var se *upgrade.StepError
		if !errors.As(err, &se) || se.Recorded || !errors.Is(err, upgrade.ErrNotRecorded) || !strings.Contains(err.Error(), "lease of cluster default lost") {
			t.Fatalf("err = %v, want an unrecorded StepError saying the lease was lost", err)
		}
		f.wantState(t, state.UpgradingSecondMasterFailed)
		if ev := f.lastEvent(t); ev.Actor != state.ActorRecover {
			t.Errorf("last event by %s, want the forced recover's only", ev.Actor)
		}
	})
}

// A database that cannot be reached for a whole TTL holds new tasks back at the gate, but never
// cancels the running one; once a renewal succeeds again the waiting task goes on.
func TestDatabaseOutageHoldsTheGateWithoutCancelling(t *testing.T) {
	inBubble(t, func(t *testing.T, f *fixture) {
		f.at(t, state.UpgradedFirstMaster)
		f.w.LeaseTTL = 150 * time.Millisecond
		f.w.Store = &flakyStore{Store: f.st}
		f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
			fs := f.w.Store.(*flakyStore)
			fs.down.Store(true)
			time.Sleep(2 * f.w.LeaseTTL) // a whole TTL with no renewal
			f.c.mu.Lock()
			gate := f.c.gate
			f.c.mu.Unlock()
			opened := make(chan error, 1)
			go func() { opened <- gate(ctx) }()
			select {
			case err := <-opened:
				t.Errorf("the gate answered during the outage: %v", err)
			case <-time.After(300 * time.Millisecond):
			}
			if ctx.Err() != nil {
				t.Errorf("the running task was cancelled by the database outage: %v", ctx.Err())
			}
			fs.down.Store(false)
			select {
			case err := <-opened:
				if err != nil {
					t.Errorf("the gate refused once the database was back: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("the gate stayed closed after the database came back")
			}
			return nil, nil, false
		}
		if err := f.w.Do(t.Context(), controlPlane("controller-1")); err != nil {
			t.Fatalf("the step survives an outage: %v", err)
		}
		f.wantState(t, state.UpgradedSecondMaster)
	})
}

// flakyStore fails every lease renewal while down, and the next failApplies writes, as a
// database outage does.
type flakyStore struct {
	state.Store
	down        atomic.Bool
	failApplies atomic.Int32
}

func (s *flakyStore) Apply(ctx context.Context, c state.Change) (state.Upgrade, error) {
	if s.failApplies.Add(-1) >= 0 {
		return state.Upgrade{}, errors.New("invalid connection")
	}
	s.failApplies.Store(0)
	return s.Store.Apply(ctx, c)
}

func (s *flakyStore) RenewLease(ctx context.Context, cluster, owner string, ttl time.Duration) (state.Lease, error) {
	if s.down.Load() {
		return state.Lease{}, errors.New("dial tcp 127.0.0.1:3306: connect: connection refused")
	}
	return s.Store.RenewLease(ctx, cluster, owner, ttl)
}

// An unreachable host is refused before its step starts: the state is left as it was, the error
// keeps its class (unreachable, exit 5), and the failure is recorded as the host's, one event
// naming it (issue 35: nothing that fails is silent), and returned as a recorded step failure
// so that it is notified.
func TestUnreachableHostIsRecordedNotStarted(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	before := f.lastEvent(t)
	f.c.down["controller-1"] = &runner.UnreachableError{Host: "controller-1", Err: errors.New("connection refused")}
	err := f.w.Do(t.Context(), controlPlane("controller-1"))
	var se *upgrade.StepError
	if !errors.Is(err, fault.ErrUnreachable) || !errors.As(err, &se) || !se.Recorded || se.Host != "controller-1" {
		t.Fatalf("err = %v, want unreachable, recorded as controller-1's failure", err)
	}
	f.wantState(t, state.UpgradedFirstMaster)
	ev := f.lastEvent(t)
	if ev.ID == before.ID || ev.Hostname != "controller-1" || ev.FromState != ev.ToState || !strings.Contains(ev.Reason, "connection refused") {
		t.Errorf("newest event %+v, want the failure of controller-1 with the state unchanged", ev)
	}
}

// Two control-plane upgrades at once on one cluster: exactly one runs, the other is a conflict.
func TestConcurrentStepsOneWins(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	started := make(chan struct{})
	release := make(chan struct{})
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		close(started)
		<-release
		return nil, nil, false
	}
	errc := make(chan error, 1)
	go func() { errc <- f.w.Do(t.Context(), controlPlane("controller-1")) }()
	<-started
	second := *f.w
	second.Owner = ""
	err := second.Do(t.Context(), controlPlane("controller-1"))
	if !errors.Is(err, state.ErrConflict) {
		t.Errorf("second upgrade: %v, want a conflict", err)
	}
	// Nothing else starts under a live lease either (exit 4, not a refusal of the state).
	if err := second.Do(t.Context(), upgrade.Action{Step: state.StepNetworking}); !errors.Is(err, state.ErrConflict) {
		t.Errorf("networking under a live lease: %v, want a conflict", err)
	}
	if err := second.Abort(t.Context()); !errors.Is(err, state.ErrConflict) {
		t.Errorf("abort under a live lease: %v, want a conflict", err)
	}
	close(release)
	if err := <-errc; err != nil {
		t.Fatalf("first upgrade: %v", err)
	}
	f.wantState(t, state.UpgradedSecondMaster)
}

// The playbook's own reading of the manifests after kubeadm must show the target, or the step
// fails even though kubeadm exited 0.
func TestVerifyFailsTheStepWhenManifestsAreNotAtTarget(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		old := snapAt("v1.29.4", "sha-old", false)
		return &runner.Recap{Hosts: map[string]*runner.HostRecap{limit: {OK: 3}},
			Registered: map[string]map[string]any{limit: {"kcfg_after": old.Map()}}}, nil, true
	}
	err := f.w.Do(t.Context(), controlPlane("controller-1"))
	var se *upgrade.StepError
	if !errors.As(err, &se) || !strings.Contains(se.Cause.Error(), "manifests report v1.29.4, want v1.30.1") {
		t.Fatalf("err = %v, want the verification to fail the step", err)
	}
	f.wantState(t, state.UpgradingSecondMasterFailed)
}

// upgrade-aborting is in flight: even the abort that restores nothing holds a lease while in it.
func TestAbortHoldsALeaseWhileAborting(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedNetworking)
	before := f.generation(t)
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("abort: %v", err)
	}
	evs, err := f.st.Events(t.Context(), "default", 2)
	if err != nil || len(evs) != 2 || evs[1].ToState != state.UpgradeAborting {
		t.Fatalf("events %+v, %v", evs, err)
	}
	if gen := f.generation(t); gen != before+1 {
		t.Errorf("lease generation %d after the abort, want %d: upgrade-aborting must hold a lease", gen, before+1)
	}
}

// Host names of any legal form work in every multi-host step: IPv6 literals hold ':', which a
// --limit pattern would split.
func TestIPv6HostNamesInABatch(t *testing.T) {
	f := newFixtureWith(t, `all:
  children:
    controllers:
      hosts:
        controller-0:
        controller-1:
    workers:
      hosts:
        "fd00::10":
        "fd00::11":
`)
	f.c.mu.Lock()
	for _, h := range []string{"fd00::10", "fd00::11"} {
		f.c.snaps[h] = kubeadm.Snapshot{Taken: time.Now(), ConfigExists: true, ConfigSHA256: "sha-old"}
		f.c.kubelet[h] = "v1.29.4"
	}
	f.c.mu.Unlock()
	if _, err := f.w.Start(t.Context(), "v1.30.1", "", false); err != nil {
		t.Fatal(err)
	}
	if err := f.w.Run(t.Context(), upgrade.RunOptions{WorkerBatch: 2}); err != nil {
		t.Fatalf("upgrade run: %v", err)
	}
	f.wantState(t, state.UpgradeComplete)
	if !slices.Contains(f.c.played(), "kubelet:kubelet@fd00::10:fd00::11") {
		t.Errorf("the two IPv6 workers did not run as one batch: %v", f.c.played())
	}
}

// A renewal that runs just after the final write released the lease finds it gone: the run must
// still report its recorded failure (exit 1), not an outcome "not recorded" (exit 6). The kill
// campaign saw this race.
func TestRenewalAfterTheReleaseIsNoLoss(t *testing.T) {
	inBubble(t, func(t *testing.T, f *fixture) {
		f.at(t, state.UpgradedFirstMaster)
		f.w.LeaseTTL = 60 * time.Millisecond // a renewal every 20 ms
		rs := &renewAfterRelease{Store: f.st}
		f.w.Store = rs
		f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
			r := failed("controller-1", 1, "error execution phase addon: boom\n")
			return r, r.Err(), true
		}
		err := f.w.Do(t.Context(), controlPlane("controller-1"))
		if rs.conflicts.Load() == 0 {
			t.Fatal("no renewal ran after the release: the race was not reproduced")
		}
		var se *upgrade.StepError
		if !errors.As(err, &se) || !se.Recorded || !errors.Is(err, upgrade.ErrFailed) || errors.Is(err, upgrade.ErrNotRecorded) {
			t.Fatalf("err = %v, want the recorded failure", err)
		}
		f.wantState(t, state.UpgradingSecondMasterFailed)
	})
}

// renewAfterRelease holds a write that leaves a failed state until a lease renewal has run after
// it, and counts the renewals that found the lease gone.
type renewAfterRelease struct {
	state.Store
	conflicts atomic.Int32
}

func (s *renewAfterRelease) Apply(ctx context.Context, c state.Change) (state.Upgrade, error) {
	u, err := s.Store.Apply(ctx, c)
	if err == nil && u.State.Failed() {
		for deadline := time.Now().Add(5 * time.Second); s.conflicts.Load() == 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	return u, err
}

func (s *renewAfterRelease) RenewLease(ctx context.Context, cluster, owner string, ttl time.Duration) (state.Lease, error) {
	l, err := s.Store.RenewLease(ctx, cluster, owner, ttl)
	if errors.Is(err, state.ErrConflict) {
		s.conflicts.Add(1)
	}
	return l, err
}
