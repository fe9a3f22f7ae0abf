package upgrade_test

import (
	"slices"
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

// An inventory whose external etcd member is a host of the etcd group only (no kubelet there,
// no personality): the upgrade takes its nodes alone, and abort's kubelet check reads the
// nodes' kubelets, not etcd-0's, so the abort is not refused for a kubelet etcd-0 never ran.
func TestDedicatedEtcdHostIsNoNode(t *testing.T) {
	f := newFixtureWith(t, withEtcdGroup)
	f.at(t, state.UpgradedFirstMaster)
	hosts, err := f.st.Hosts(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range hosts {
		names = append(names, h.Hostname)
	}
	slices.Sort(names)
	if want := []string{"controller-0", "controller-1", "worker-0"}; !slices.Equal(names, want) {
		t.Errorf("the upgrade's hosts are %v; want the nodes %v, not the etcd host", names, want)
	}
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("abort with a dedicated etcd host in the inventory: %v", err)
	}
	f.wantState(t, state.UpgradeAborted)
}
