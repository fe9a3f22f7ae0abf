package watch_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/watch"
)

// The status an operator reads: a failed cluster nobody retried for two hours, with its last
// failure, the finding the runner's probe added after it and the command that retries it on the
// host that failed; an operation in flight whose lease expired (stuck); one a live lease holds
// (wait). Leases are read for the request, not from a pass: no pass has run.
func TestStatusNeedsAPerson(t *testing.T) {
	f := recoverytest.New(t)
	f.Start(t, "failed")
	f.Move(t, "failed", state.UpgradingFirstMaster, "controller-1", state.UpgradingControlPlane, "runner-a", time.Hour)
	exit := 1
	_, err := recovery.Fail(t.Context(), f.St, recovery.Request{Cluster: "failed", Actor: state.ActorRunner, LeaseOwner: "runner-a",
		Reason: "kubeadm upgrade apply exited 1", Evidence: &recovery.Evidence{Step: "first-master", ExitStatus: &exit, Error: "exit 1"}})
	if err != nil {
		t.Fatalf("fail: %v", err)
	}
	probe, _ := json.Marshal(recovery.Evidence{Host: "controller-1", Finding: &kubeadm.Finding{Class: "late", Summary: "the manifests are at v1.30.1"}})
	if err := f.St.AddEvent(t.Context(), state.Event{Cluster: "failed", Hostname: "controller-1", Actor: state.ActorRunner,
		Reason: "probe after the failure", Evidence: probe}); err != nil {
		t.Fatalf("add the probe's event: %v", err)
	}
	f.Clk.Add(2 * time.Hour)
	f.Start(t, "dead")
	f.Move(t, "dead", state.UpgradingSecondMaster, "controller-2", state.UpgradingControlPlane, "gone", 30*time.Second)
	f.Start(t, "busy")
	f.Move(t, "busy", state.UpgradingNetworking, "", state.HostIdle, "alive", time.Hour)
	f.Start(t, "idle")
	f.Clk.Add(time.Minute)

	w := &watch.Watcher{Store: f.St, CommandFlags: []string{"--db", "sqlite:/var/lib/kupgrade.db"}}
	var st watch.Status
	if err := json.Unmarshal([]byte(get(t, w.StatusHandler(), "/status.json")), &st); err != nil {
		t.Fatalf("/status.json: %v", err)
	}
	rows := map[string]watch.ClusterStatus{}
	for _, c := range st.Clusters {
		rows[c.Cluster] = c
	}
	if fl := rows["failed"]; fl.Mark != watch.MarkUnretried || fl.AgeSeconds < 7200 ||
		!strings.Contains(fl.LastFailure, "[controller-1] kubeadm upgrade apply exited 1") ||
		fl.Finding != "late: the manifests are at v1.30.1" ||
		fl.Next != "kupgrade host upgrade controller-1 control-plane --db sqlite:/var/lib/kupgrade.db --cluster failed" {
		t.Errorf("failed: %+v", fl)
	}
	if d := rows["dead"]; d.Mark != watch.MarkStuck || d.Host != "controller-2" || d.HostStatuses != "controller-2 upgrading-control-plane" || d.LeaseLive ||
		!strings.Contains(d.Lease, "gone (control-plane@controller-2), expired 30s ago") ||
		d.Next != "kupgrade recover --db sqlite:/var/lib/kupgrade.db --cluster dead" {
		t.Errorf("dead: %+v", d)
	}
	if b := rows["busy"]; b.Mark != "" || !b.LeaseLive || b.Next != "" || b.AgeSeconds != 60 {
		t.Errorf("busy: %+v", b)
	}
	if i := rows["idle"]; i.Mark != "" || i.Class != "" || i.Next != "kupgrade upgrade run --db sqlite:/var/lib/kupgrade.db --cluster idle" {
		t.Errorf("idle: %+v", i)
	}
	if len(st.Clusters) != 4 || st.Clusters[3].Cluster != "idle" {
		t.Errorf("the clusters that need a person are not first: %+v", st.Clusters)
	}
	if page := get(t, w.StatusHandler(), "/"); !strings.Contains(page, `"mark":"stuck"`) || !strings.Contains(page, "fetch(\"/status.json\"") {
		t.Errorf("the page does not carry the status and the script that refreshes it:\n%s", page)
	}
}
