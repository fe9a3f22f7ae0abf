package upgrade_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/fault"
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
		"kubelet@controller-0", "kubelet@controller-1", "kubelet@worker-0",
	}
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
	err := f.w.ControlPlane(t.Context(), "controller-1")
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
	ev := f.lastEvent(t)
	var evidence struct {
		ExitStatus int `json:"exit_status"`
		Finding    struct{ Class string }
	}
	if err := json.Unmarshal(ev.Evidence, &evidence); err != nil {
		t.Fatal(err)
	}
	if ev.Actor != state.ActorRunner || ev.FromHostStatus != state.UpgradingControlPlane ||
		evidence.ExitStatus != 1 || evidence.Finding.Class != "kubelet-config-rewritten" {
		t.Errorf("failure event %+v evidence %s", ev, ev.Evidence)
	}
	if l, _ := f.st.Lease(t.Context(), "default"); l != nil {
		t.Errorf("the failure kept the lease: %+v", l)
	}
	if h := f.host(t, "controller-1"); h.ControlPlaneVersion != "v1.30.1" {
		t.Errorf("host list shows control plane %s; the probe found the manifests at v1.30.1", h.ControlPlaneVersion)
	}
	if err := f.w.ControlPlane(t.Context(), "controller-1"); err != nil {
		t.Fatalf("retry: %v", err)
	}
	f.wantState(t, state.UpgradedSecondMaster)
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
	err := f.w.ControlPlane(ctx, "controller-1")
	if !errors.Is(err, context.Canceled) || !errors.Is(err, upgrade.ErrFailed) {
		t.Fatalf("err = %v, want a failed operation caused by the interruption", err)
	}
	f.wantState(t, state.UpgradingSecondMasterFailed)
	if h := f.host(t, "controller-1"); h.Status != state.HostIdle {
		t.Errorf("host status %q after interrupt", h.Status)
	}
}

// Someone fails the operation while it runs (recover --force): the runner notices at its next
// renewal, stops, and does not write over the other's record.
func TestLostLeaseStopsTheStep(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	f.w.LeaseTTL = 150 * time.Millisecond
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		if _, err := recovery.Fail(context.Background(), f.st, recovery.Request{Cluster: "default",
			Actor: state.ActorRecover, Reason: "forced", Force: true}); err != nil {
			t.Errorf("forced fail: %v", err)
		}
		select {
		case <-ctx.Done():
			return &runner.Recap{}, ctx.Err(), true
		case <-time.After(10 * time.Second):
			t.Error("the step was not cancelled after its lease was lost")
			return &runner.Recap{}, nil, true
		}
	}
	err := f.w.ControlPlane(t.Context(), "controller-1")
	var se *upgrade.StepError
	if !errors.As(err, &se) || se.Recorded {
		t.Fatalf("err = %v, want an unrecorded StepError", err)
	}
	f.wantState(t, state.UpgradingSecondMasterFailed)
	if ev := f.lastEvent(t); ev.Actor != state.ActorRecover {
		t.Errorf("last event by %s, want the forced recover's only", ev.Actor)
	}
}

// An unreachable host is refused before anything is written.
func TestUnreachableHostChangesNothing(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	before := f.lastEvent(t)
	f.c.down["controller-1"] = &runner.UnreachableError{Host: "controller-1", Err: errors.New("connection refused")}
	err := f.w.ControlPlane(t.Context(), "controller-1")
	if !errors.Is(err, fault.ErrUnreachable) {
		t.Fatalf("err = %v, want unreachable", err)
	}
	f.wantState(t, state.UpgradedFirstMaster)
	if ev := f.lastEvent(t); ev.ID != before.ID {
		t.Errorf("an event was written: %+v", ev)
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
	go func() { errc <- f.w.ControlPlane(t.Context(), "controller-1") }()
	<-started
	second := *f.w
	second.Owner = ""
	err := second.ControlPlane(t.Context(), "controller-1")
	if !errors.Is(err, state.ErrConflict) {
		t.Errorf("second upgrade: %v, want a conflict", err)
	}
	// Nothing else starts under a live lease either (exit 4, not a refusal of the state).
	if err := second.ClusterStep(t.Context(), state.StepNetworking); !errors.Is(err, state.ErrConflict) {
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
	err := f.w.ControlPlane(t.Context(), "controller-1")
	var se *upgrade.StepError
	if !errors.As(err, &se) || !strings.Contains(se.Cause.Error(), "manifests report v1.29.4, want v1.30.1") {
		t.Fatalf("err = %v, want the verification to fail the step", err)
	}
	f.wantState(t, state.UpgradingSecondMasterFailed)
}
