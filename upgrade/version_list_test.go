package upgrade_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

func TestVersionList(t *testing.T) {
	cs := []*inventory.Host{{Name: "c0"}, {Name: "c1"}}
	vs := map[string]upgrade.Versions{
		"c0": {ControlPlane: "v1.29.4", Kubelet: "v1.29.4", Kubeadm: "v1.30.2"},
		"c1": {ControlPlane: "v1.29.4", Kubelet: "v1.29.4", Kubeadm: "v1.31.0"},
		"w0": {Kubelet: "v1.28.9", Kubeadm: "v1.28.9"},
	}
	rows, err := upgrade.VersionList(cs, vs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]string{}
	var order []string
	for _, r := range rows {
		got[r.Version] = [2]string{r.State, joinHosts(r.Hosts)}
		order = append(order, r.Version)
	}
	want := map[string][2]string{
		"v1.28.9":         {"partial", "w0"},     // a kubelet behind; its kubeadm would be a downgrade
		"v1.29.4":         {"active", "c0,c1"},   // the control plane
		"v1.30.2":         {"available", "c0"},   // one minor up
		"v1.31.0":         {"unavailable", "c1"}, // two minors up: kubeadm refuses
		"v1.29.x (x > 4)": {"next", ""},          // no kubeadm reports a later patch
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %v\nwant %v", got, want)
	}
	if wantOrder := []string{"v1.28.9", "v1.29.4", "v1.30.2", "v1.31.0", "v1.29.x (x > 4)"}; !reflect.DeepEqual(order, wantOrder) {
		t.Errorf("order = %v, want %v", order, wantOrder)
	}
}

// With no kubeadm to read, the list is the rule's: a later patch and the next minor.
func TestVersionListRuleOnly(t *testing.T) {
	rows, err := upgrade.VersionList([]*inventory.Host{{Name: "c0"}}, map[string]upgrade.Versions{"c0": {ControlPlane: "v1.30.1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].State != "active" || rows[2].Version != "v1.31.x" || rows[2].State != "next" {
		t.Errorf("rows = %+v", rows)
	}
}

func TestVersionListNeedsAControlPlane(t *testing.T) {
	_, err := upgrade.VersionList([]*inventory.Host{{Name: "c0"}}, map[string]upgrade.Versions{"c0": {Kubelet: "v1.30.1"}})
	if !errors.Is(err, state.ErrRefused) {
		t.Errorf("err = %v, want refused", err)
	}
}

func joinHosts(hs []string) string {
	s := ""
	for i, h := range hs {
		if i > 0 {
			s += ","
		}
		s += h
	}
	return s
}
