package watch_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/watch"
)

// One hand edit gone wrong fails no pass: the bad clusters are reported (emitted, logged, counted
// in /metrics, shown on the status page) and left alone; the good one is audited.
func TestAuditSkipsBadRowsAndAuditsTheOthers(t *testing.T) {
	f := recoverytest.New(t)
	f.BadClusters(t)
	var log runnertest.Buffer
	var emitted []recovery.Action
	w := &watch.Watcher{Store: f.St, Metrics: watch.NewMetrics(), Log: slog.New(slog.NewTextHandler(&log, nil)),
		Options: recovery.AuditOptions{StaleAfter: time.Hour, Emit: func(a recovery.Action) { emitted = append(emitted, a) }}}
	rep, err := w.Pass(t.Context())
	if err != nil {
		t.Fatalf("pass with bad rows: %v", err)
	}
	if _, ok := rep.Failed["good"]; !ok || len(rep.Failed) != 1 {
		t.Fatalf("failed %v, want only good", rep.Failed)
	}
	if u := f.Upgrade(t, "good"); u.State != state.UpgradingNetworkingFailed {
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
	if u := f.Upgrade(t, "bad-state"); u.State != "upgrading-frist-master" {
		t.Errorf("bad-state touched: %s", u.State)
	}
	if s := f.Status(t, "bad-lease", "controller-1"); s != state.UpgradingControlPlane {
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
