package recovery_test

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
)

// badClusters seeds a stale cluster the audit must fail and three an operator's hand edits broke:
// a lease whose expires_at is garbage, a state entered "yesterday", and a state that is not one.
func badClusters(t *testing.T, f *fixture) {
	t.Helper()
	for _, c := range []string{"bad-entered", "bad-lease", "bad-state", "good"} {
		f.start(t, c)
	}
	f.move(t, "good", state.UpgradingNetworking, "", "", "", 0)
	f.move(t, "bad-lease", state.UpgradingFirstMaster, "controller-1", state.UpgradingControlPlane, "dead:1:x", 30*time.Second)
	f.move(t, "bad-entered", state.UpgradingStorage, "", "", "", 0)
	f.clk.Add(2 * time.Hour)
	f.sql(t, "UPDATE upgrade_lease SET expires_at = 'garbage' WHERE cluster = 'bad-lease'")
	f.sql(t, "UPDATE kube_upgrade SET state_entered_at = 'yesterday' WHERE cluster = 'bad-entered'")
	f.sql(t, "UPDATE kube_upgrade SET state = 'upgrading-frist-master' WHERE cluster = 'bad-state'")
}

// One hand edit gone wrong fails no pass: the bad clusters are reported (emitted, logged, counted
// in /metrics, shown on the status page) and left alone; the good one is audited.
func TestAuditSkipsBadRowsAndAuditsTheOthers(t *testing.T) {
	f := newFixture(t)
	badClusters(t, f)
	var log syncLog
	var emitted []recovery.Action
	w := &recovery.Watcher{Store: f.st, Metrics: recovery.NewMetrics(), Log: slog.New(slog.NewTextHandler(&log, nil)),
		Options: recovery.AuditOptions{StaleAfter: time.Hour, Emit: func(a recovery.Action) { emitted = append(emitted, a) }}}
	rep, err := w.Pass(t.Context())
	if err != nil {
		t.Fatalf("pass with bad rows: %v", err)
	}
	if _, ok := rep.Failed["good"]; !ok || len(rep.Failed) != 1 {
		t.Fatalf("failed %v, want only good", rep.Failed)
	}
	if u := f.upgrade(t, "good"); u.State != state.UpgradingNetworkingFailed {
		t.Errorf("good: state %s, want upgrading-networking-failed", u.State)
	}
	var skipped []string
	for _, a := range emitted {
		if a.Outcome == recovery.OutcomeSkipped && a.Why == recovery.WhyUnreadable && a.Error != "" {
			skipped = append(skipped, a.Cluster)
		}
	}
	if strings.Join(skipped, ",") != "bad-entered,bad-lease,bad-state" || len(rep.Bad) != 3 {
		t.Errorf("skipped %v, bad %+v: want the three bad clusters", skipped, rep.Bad)
	}
	if u := f.upgrade(t, "bad-state"); u.State != "upgrading-frist-master" {
		t.Errorf("bad-state touched: %s", u.State)
	}
	if s := f.status(t, "bad-lease", "controller-1"); s != state.UpgradingControlPlane {
		t.Errorf("bad-lease's host touched: %q", s)
	}
	if l := log.String(); !strings.Contains(l, "audit skipped a cluster whose rows cannot be read") ||
		!strings.Contains(l, "cluster=bad-lease") || !strings.Contains(l, `\"garbage\"`) {
		t.Errorf("log lacks the bad lease:\n%s", l)
	}
	body := get(t, w.Metrics.Handler(), "/metrics")
	for _, want := range []string{`kupgrade_audit_unreadable_columns{cluster="bad-lease"} 1`,
		`kupgrade_audit_unreadable_columns{cluster="bad-state"} 1`, "kupgrade_audit_pass_errors_total 0"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	page := get(t, w.StatusHandler(), "/")
	for _, want := range []string{"bad-lease", "upgrade_lease.expires_at", "kube_upgrade.state_entered_at",
		"upgrading-frist-master", "UPDATE kube_upgrade SET state"} {
		if !strings.Contains(page, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
}

// `upgrade failed` on the bad clusters: an unreadable lease is refused without --force and
// deleted with it; an unreadable state_entered_at is rewritten; a state that is not a state is
// refused, naming the UPDATE that fixes it.
func TestFailBadRows(t *testing.T) {
	f := newFixture(t)
	badClusters(t, f)
	ctx := t.Context()
	req := func(cluster string, force bool) recovery.Request {
		return recovery.Request{Cluster: cluster, Actor: state.ActorCLI, Reason: "test", Force: force}
	}
	_, err := recovery.FailAll(ctx, f.st, req("bad-lease", false))
	if !isConflict(err) || !strings.Contains(err.Error(), "pass --force") || !strings.Contains(err.Error(), "expires_at") {
		t.Fatalf("fail bad-lease without --force: %v; want a conflict naming expires_at and --force", err)
	}
	res, err := recovery.FailAll(ctx, f.st, req("bad-lease", true))
	if err != nil || len(res) != 1 || res[0].ToState != state.UpgradingFirstMasterFailed || res[0].Host != "controller-1" {
		t.Fatalf("fail bad-lease --force: %+v, %v", res, err)
	}
	if l := f.lease(t, "bad-lease"); l != nil {
		t.Errorf("unreadable lease left behind: %+v", l)
	}
	if s := f.status(t, "bad-lease", "controller-1"); s != state.HostIdle {
		t.Errorf("controller-1 status %q, want cleared", s)
	}

	if _, err := recovery.FailAll(ctx, f.st, req("bad-entered", true)); err != nil {
		t.Fatalf("fail bad-entered --force: %v", err)
	}
	if u := f.upgrade(t, "bad-entered"); u.State != state.UpgradingStorageFailed || u.StateEnteredAt.IsZero() {
		t.Errorf("bad-entered: %s entered at %v, want upgrading-storage-failed, rewritten", u.State, u.StateEnteredAt)
	}

	_, err = recovery.FailAll(ctx, f.st, req("bad-state", true))
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
		{"host row 2h old", 2 * time.Hour, state.HostIdle, 1},
		{"host row 30m old", 30 * time.Minute, state.UpgradingKubelet, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.start(t, "default")
			f.move(t, "default", state.UpgradingKubelets, "", "", "", 0)
			f.clk.Add(3 * time.Hour)
			f.move(t, "default", state.UpgradingKubelets, "worker-1", state.UpgradingKubelet, "", 0)
			f.clk.Add(tc.hostAge - time.Minute)
			f.move(t, "default", state.UpgradingKubelets, "controller-1", state.UpgradedKubelet, "", 0) // something else
			f.clk.Add(time.Minute)
			rep := audit(t, f, recovery.AuditOptions{StaleAfter: time.Hour})
			if len(rep.Actions) != tc.wantActions || f.status(t, "default", "worker-1") != tc.want {
				t.Fatalf("actions %+v, worker-1 %q; want %d actions, %q", rep.Actions, f.status(t, "default", "worker-1"), tc.wantActions, tc.want)
			}
			if tc.wantActions == 1 && (rep.Actions[0].Why != recovery.WhyStale || rep.Actions[0].Host != "worker-1" ||
				!strings.Contains(rep.Actions[0].Msg, "host worker-1 upgrading-kubelet in upgrading-kubelets for 2h0m0s")) {
				t.Errorf("action %+v: want worker-1 stale for 2h", rep.Actions[0])
			}
		})
	}
}
