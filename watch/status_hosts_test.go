package watch_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/watch"
)

// The status page flags a host left failed while its cluster stays upgrading-kubelets (red,
// listed first, with the host, its failure and its retry), and reads both from the current upgrade's hosts:
// a failure its retry resolved, or one of an older upgrade of the same cluster, is no failure
// now, and its retry no next step.
func TestStatusFailedHostsOfTheCurrentUpgradeOnly(t *testing.T) {
	f := recoverytest.New(t)
	for _, c := range []string{"failed", "resolved", "again"} {
		f.Start(t, c)
		failKubelet(t, f, c)
	}
	ku := state.UpgradingKubelets
	if _, err := f.St.Apply(t.Context(), state.MarkKubelet("resolved", state.ActorRunner, ku, "worker-1", state.UpgradingKubeletFailed, "v1.30.1", 0,
		state.Because("retried by hand"))); err != nil {
		t.Fatal(err)
	}
	f.Move(t, "again", state.UpgradeComplete, "worker-1", state.HostIdle, "", 0)
	if err := f.St.DeleteUpgrade(t.Context(), "again", state.UpgradeComplete, state.ActorCLI, "done"); err != nil {
		t.Fatal(err)
	}
	f.Start(t, "again")
	f.Move(t, "again", ku, "", "", "", 0)

	w := &watch.Watcher{Store: f.St}
	var st watch.Status
	if err := json.Unmarshal([]byte(get(t, w.StatusHandler(), "/status.json")), &st); err != nil {
		t.Fatalf("/status.json: %v", err)
	}
	if len(st.Clusters) != 3 || st.Clusters[0].Cluster != "failed" {
		t.Errorf("rows %+v, want the cluster with a failed host first", st.Clusters)
	}
	rows := map[string]watch.ClusterStatus{}
	for _, c := range st.Clusters {
		rows[c.Cluster] = c
	}
	if r := rows["failed"]; r.Class != "failed" || r.FailedHosts != "worker-1 (upgrading-kubelet-failed)" ||
		!strings.Contains(r.LastFailure, "[worker-1] kubelet did not restart") || r.Next != "kupgrade host upgrade worker-1 kubelet --cluster failed" {
		t.Errorf("failed: %+v", r)
	}
	for _, c := range []string{"resolved", "again"} {
		if r := rows[c]; r.Class == "failed" || r.FailedHosts != "" || r.LastFailure != "" || r.Next != "kupgrade upgrade run --cluster "+c {
			t.Errorf("%s: %+v, want no failure and `upgrade run` next", c, r)
		}
	}
}

// failKubelet fails worker-1's kubelet step in cluster c through the one failing path.
func failKubelet(t *testing.T, f *recoverytest.Fixture, c string) {
	t.Helper()
	f.Move(t, c, state.UpgradingKubelets, "worker-1", state.UpgradingKubelet, "runner-a", time.Hour)
	_, err := recovery.Fail(t.Context(), f.St, recovery.Request{Cluster: c, Actor: state.ActorRunner, LeaseOwner: "runner-a", Host: "worker-1",
		Expect: state.UpgradingKubelets, Reason: "kubelet did not restart", Evidence: &recovery.Evidence{Step: "kubelets", Error: "exit 1"}})
	if err != nil {
		t.Fatalf("fail %s: %v", c, err)
	}
}
