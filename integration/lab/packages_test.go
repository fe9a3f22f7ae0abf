//go:build integration

package lab

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
)

// An RPM host of a simulated lab is one kupgrade reads as such: ansible_pkg_mgr: dnf in the
// inventory for that host only, kept in lab.json for kupgrade-lab's later commands.
func TestDnfHostInventory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys, err := newClientKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := &Lab{Name: "kupgrade-lab-dnf-test", Dir: dir, keys: keys, nodes: []*Node{
		{Name: "controller-0", Role: "controller", Port: 2201, HostKey: keys.signer.PublicKey(), PackageManager: DnfManager},
		{Name: "worker-0", Role: "worker", Port: 2202, HostKey: keys.signer.PublicKey(), PackageManager: AptManager},
	}}
	if err := l.writeFiles(); err != nil {
		t.Fatal(err)
	}
	inv, err := inventory.Load(l.Inventory())
	if err != nil {
		t.Fatalf("load the lab's inventory: %v", err)
	}
	for name, want := range map[string]any{"controller-0": DnfManager, "worker-0": nil} {
		h, ok := inv.Host(name)
		if !ok {
			t.Fatalf("%s is not in the inventory", name)
		}
		if got := h.Vars["ansible_pkg_mgr"]; got != want {
			t.Errorf("%s: ansible_pkg_mgr = %v, want %v", name, got, want)
		}
	}
	data, err := os.ReadFile(l.path(StateFile))
	if err != nil {
		t.Fatal(err)
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil || len(st.Nodes) != 2 || st.Nodes[0].PackageManager != DnfManager {
		t.Errorf("lab.json does not keep controller-0's package manager (%v):\n%s", err, data)
	}
}
