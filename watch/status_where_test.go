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

// The status page of a watcher started beside cluster lab's inventory never offers another
// cluster's command with that inventory: a fleet's cluster goes on with `kupgrade fleet run` over
// the fleet's inventories, another cluster is given its own inventory, and lab keeps the -i.
func TestStatusNextCommandsNameTheRightInventory(t *testing.T) {
	f := recoverytest.New(t)
	for _, c := range []string{"lab", "c0001", "other"} {
		f.Start(t, c)
		f.Move(t, c, state.UpgradingFirstMaster, "controller-1", state.UpgradingControlPlane, "runner-a", time.Minute)
		if _, err := recovery.Fail(t.Context(), f.St, recovery.Request{Cluster: c, Actor: state.ActorRunner, LeaseOwner: "runner-a",
			Reason: "kubeadm upgrade node exited 1"}); err != nil {
			t.Fatalf("fail %s: %v", c, err)
		}
	}
	if _, err := f.St.JoinFleet(t.Context(), "edge", []state.FleetMember{{Cluster: "c0001", ToVersion: "v1.30.1"}}); err != nil {
		t.Fatal(err)
	}
	w := &watch.Watcher{Store: f.St, InventoryCluster: "lab",
		CommandFlags: []string{"--db", "sqlite:/var/lib/kupgrade.db", "-i", "/srv/lab/inventory.yml"}}
	var st watch.Status
	if err := json.Unmarshal([]byte(get(t, w.StatusHandler(), "/status.json")), &st); err != nil {
		t.Fatalf("/status.json: %v", err)
	}
	want := map[string]string{
		"lab":   "kupgrade host upgrade controller-1 control-plane --db sqlite:/var/lib/kupgrade.db -i /srv/lab/inventory.yml --cluster lab",
		"c0001": "kupgrade fleet run --fleet edge --to v1.30.1 --db sqlite:/var/lib/kupgrade.db --inventories " + recovery.FleetInventoriesWord,
		"other": "kupgrade host upgrade controller-1 control-plane --db sqlite:/var/lib/kupgrade.db -i " + recovery.ClusterInventoryWord + " --cluster other",
	}
	if len(st.Clusters) != len(want) {
		t.Fatalf("%d clusters on the page, want %d", len(st.Clusters), len(want))
	}
	for _, c := range st.Clusters {
		if c.Next != want[c.Cluster] {
			t.Errorf("%s: next %q, want %q", c.Cluster, c.Next, want[c.Cluster])
		}
		if c.Cluster != "lab" && strings.Contains(c.Next, "/srv/lab/inventory.yml") {
			t.Errorf("%s: next %q names lab's inventory", c.Cluster, c.Next)
		}
	}
}
