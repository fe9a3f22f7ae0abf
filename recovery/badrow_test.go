package recovery_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
)

// `upgrade failed` on the bad clusters: an unreadable lease is refused without --force and
// deleted with it; an unreadable state_entered_at is rewritten; a state that is not a state is
// refused, naming the UPDATE that fixes it.
func TestFailBadRows(t *testing.T) {
	f := recoverytest.New(t)
	f.BadClusters(t)
	ctx := t.Context()
	req := func(cluster string, force bool) recovery.Request {
		return recovery.Request{Cluster: cluster, Actor: state.ActorCLI, Reason: "test", Force: force}
	}
	_, err := recovery.FailAll(ctx, f.St, req("bad-lease", false))
	if !isConflict(err) || !strings.Contains(err.Error(), "pass --force") || !strings.Contains(err.Error(), "expires_at") {
		t.Fatalf("fail bad-lease without --force: %v; want a conflict naming expires_at and --force", err)
	}
	res, err := recovery.FailAll(ctx, f.St, req("bad-lease", true))
	if err != nil || len(res) != 1 || res[0].ToState != state.UpgradingFirstMasterFailed || res[0].Host != "controller-1" {
		t.Fatalf("fail bad-lease --force: %+v, %v", res, err)
	}
	if l := f.Lease(t, "bad-lease"); l != nil {
		t.Errorf("unreadable lease left behind: %+v", l)
	}
	if s := f.Status(t, "bad-lease", "controller-1"); s != state.HostIdle {
		t.Errorf("controller-1 status %q, want cleared", s)
	}

	if _, err := recovery.FailAll(ctx, f.St, req("bad-entered", true)); err != nil {
		t.Fatalf("fail bad-entered --force: %v", err)
	}
	if u := f.Upgrade(t, "bad-entered"); u.State != state.UpgradingStorageFailed || u.StateEnteredAt.IsZero() {
		t.Errorf("bad-entered: %s entered at %v, want upgrading-storage-failed, rewritten", u.State, u.StateEnteredAt)
	}

	_, err = recovery.FailAll(ctx, f.St, req("bad-state", true))
	if !errors.Is(err, state.ErrRefused) || !errors.Is(err, state.ErrBadRow) ||
		!strings.Contains(err.Error(), `"upgrading-frist-master" is not a state`) ||
		!strings.Contains(err.Error(), "UPDATE kube_upgrade SET state = ") {
		t.Fatalf("fail bad-state --force: %v; want a refusal naming the UPDATE", err)
	}
}

// A host left upgrading-kubelet with no lease is judged by its own row's age, not by the
// upgrade's updated_at, which a write about another host moved a minute ago.
func TestAuditAgesAHostFromItsOwnRow(t *testing.T) {
	for _, tc := range []struct {
		name        string
		hostAge     time.Duration // since worker-1 was set upgrading-kubelet
		want        state.HostStatus
		wantActions int
	}{
		{"host row 2h old", 2 * time.Hour, state.UpgradingKubeletFailed, 1},
		{"host row 30m old", 30 * time.Minute, state.UpgradingKubelet, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := recoverytest.New(t)
			f.Start(t, "default")
			f.Move(t, "default", state.UpgradingKubelets, "", "", "", 0)
			f.Clk.Add(3 * time.Hour)
			f.Move(t, "default", state.UpgradingKubelets, "worker-1", state.UpgradingKubelet, "", 0)
			f.Clk.Add(tc.hostAge - time.Minute)
			f.Move(t, "default", state.UpgradingKubelets, "controller-1", state.UpgradedKubelet, "", 0) // something else
			f.Clk.Add(time.Minute)
			rep := audit(t, f, recovery.AuditOptions{StaleAfter: time.Hour})
			if len(rep.Actions) != tc.wantActions || f.Status(t, "default", "worker-1") != tc.want {
				t.Fatalf("actions %+v, worker-1 %q; want %d actions, %q", rep.Actions, f.Status(t, "default", "worker-1"), tc.wantActions, tc.want)
			}
			if tc.wantActions == 1 && (rep.Actions[0].Why != recovery.WhyStale || rep.Actions[0].Host != "worker-1" ||
				!strings.Contains(rep.Actions[0].Msg, "host worker-1 upgrading-kubelet in upgrading-kubelets for 2h0m0s")) {
				t.Errorf("action %+v: want worker-1 stale for 2h", rep.Actions[0])
			}
		})
	}
}
