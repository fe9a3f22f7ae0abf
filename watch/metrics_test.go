package watch_test

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/watch"
)

// The per-cluster series an on-call alerts on are read from the database at the scrape: the
// state (failed ones too) with the time it was entered, in flight or not, and the lease's
// expiry; the hosts left failed while the cluster goes on (a worker's kubelet); the build is
// labelled.
func TestMetricsPerClusterState(t *testing.T) {
	f := recoverytest.New(t)
	f.Start(t, "failed")
	f.Move(t, "failed", state.UpgradingFirstMasterFailed, "", state.HostIdle, "", 0)
	f.Start(t, "busy")
	f.Move(t, "busy", state.UpgradingSecondMaster, "controller-2", state.UpgradingControlPlane, "alive", time.Hour)
	expires := f.Lease(t, "busy").ExpiresAt
	f.Start(t, "draining")
	f.Move(t, "draining", state.UpgradingKubelets, "worker-1", state.DrainingNode, "", 0)
	f.Move(t, "draining", state.UpgradingKubelets, "controller-1", state.UncordoningNode, "alive", time.Hour)
	f.Start(t, "kubelet")
	f.Move(t, "kubelet", state.UpgradingKubelets, "worker-1", state.UpgradingKubeletFailed, "", 0)

	m := watch.NewMetrics()
	m.ReadStates(f.St)
	m.SetBuildInfo("v1.2.3", "abc1234")
	body := get(t, m.Handler(), "/metrics")
	for _, want := range []string{
		`kupgrade_upgrade_state{cluster="failed",state="upgrading-first-master-failed"} 1`,
		`kupgrade_upgrade_state{cluster="busy",state="upgrading-second-master"} 1`,
		`kupgrade_upgrade_in_flight{cluster="failed"} 0`,
		`kupgrade_upgrade_in_flight{cluster="busy"} 1`,
		`kupgrade_upgrade_in_flight{cluster="draining"} 1`,
		`kupgrade_hosts_in_flight{cluster="busy",status="upgrading-control-plane"} 1`,
		`kupgrade_hosts_in_flight{cluster="draining",status="draining-node"} 1`,
		`kupgrade_hosts_in_flight{cluster="draining",status="uncordoning-node"} 1`,
		`kupgrade_hosts_failed{cluster="kubelet",status="upgrading-kubelet-failed"} 1`,
		"kupgrade_state_read_ok 1",
		`kupgrade_build_info{commit="abc1234",goversion="go`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	for series, want := range map[string]time.Time{
		`kupgrade_upgrade_state_entered_timestamp_seconds{cluster="failed"}`:            expires.Add(-time.Hour),
		`kupgrade_upgrade_lease_expiry_timestamp_seconds{cluster="busy",owner="alive"}`: expires,
	} {
		if got, ok := sample(body, series); !ok || math.Abs(got-float64(want.UnixMilli())/1000) > 0.001 {
			t.Errorf("%s = %v (found %v), want %v", series, got, ok, want)
		}
	}
	if strings.Contains(body, `kupgrade_upgrade_lease_expiry_timestamp_seconds{cluster="failed"`) {
		t.Error("a lease is reported for a cluster nobody holds")
	}
}

// sample is the value of series in an exposition body.
func sample(body, series string) (float64, bool) {
	for l := range strings.SplitSeq(body, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}
