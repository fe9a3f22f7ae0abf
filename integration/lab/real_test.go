//go:build integration

package lab

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
)

// A real lab's inventory hands kupgrade the real installers, the systemctl shim, its next
// version and its own download-images playbook, which kupgrade must be able to load.
func TestRealInventory(t *testing.T) {
	l := filesLab(t, true)
	dir := l.Dir
	inv, err := inventory.Load(l.Inventory())
	if err != nil {
		t.Fatalf("load the real lab's inventory: %v", err)
	}
	h, ok := inv.Host("controller-0")
	if !ok {
		t.Fatal("controller-0 is not in the real lab's inventory")
	}
	if got := h.Vars["kupgrade_lab_next_version"]; got != RealToVersion {
		t.Errorf("kupgrade_lab_next_version = %v, want %s", got, RealToVersion)
	}
	if got, _ := h.Vars["kupgrade_lab_versions"].([]any); len(got) != len(RealVersions) || got[0] != RealFromVersion || got[len(got)-1] != RealLastVersion {
		t.Errorf("kupgrade_lab_versions = %v, want %v", got, RealVersions)
	}
	for _, v := range []string{"kupgrade_kubeadm_install", "kupgrade_kubelet_install"} {
		if got, ok := h.Vars[v]; ok {
			t.Errorf("%s = %v: the real lab must run kupgrade's default install from its repositories", v, got)
		}
	}
	pbs, _ := h.Vars[playbooks.VarPlaybooks].(map[string]any)
	file, _ := pbs["download-images"].(string)
	if file == "" {
		t.Fatalf("kupgrade_playbooks has no download-images: %v", h.Vars[playbooks.VarPlaybooks])
	}
	if _, err := playbooks.Load(filepath.Join(dir, file)); err != nil {
		t.Errorf("the real lab's download-images playbook does not load: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile)); err != nil {
		t.Errorf("no %s: %v", StateFile, err)
	}
}

// A real lab's external etcd host is a host of the inventory's etcd group alone, with its line
// in known_hosts, and no Kubernetes node; a simulated lab's files name no etcd host.
func TestRealEtcdHostInventory(t *testing.T) {
	for _, real := range []bool{true, false} {
		l := filesLab(t, real)
		inv, err := inventory.Load(l.Inventory())
		if err != nil {
			t.Fatalf("load the inventory (real lab: %v): %v", real, err)
		}
		known, err := os.ReadFile(l.KnownHosts())
		if err != nil {
			t.Fatal(err)
		}
		_, listed := inv.Host(EtcdHostName)
		hasGroup := slices.Contains(inv.GroupNames(), EtcdGroup)
		hasKey := strings.Contains(string(known), "[127.0.0.1]:2202 ")
		if listed != real || hasGroup != real || hasKey != real {
			t.Errorf("real lab %v: %s in the inventory %v, group %s %v, in known_hosts %v; want %v", real,
				EtcdHostName, listed, EtcdGroup, hasGroup, hasKey, real)
		}
		want := len(l.nodes)
		if real {
			want++
		}
		if n := strings.Count(string(known), "\n"); n != want {
			t.Errorf("real lab %v: %d lines in known_hosts, want %d:\n%s", real, n, want, known)
		}
		var nodes []string
		for _, h := range inv.Nodes() {
			nodes = append(nodes, h.Name)
		}
		if !slices.Equal(nodes, []string{"controller-0"}) {
			t.Errorf("real lab %v: the inventory's nodes are %v, want [controller-0]", real, nodes)
		}
		if !real {
			continue
		}
		members, err := inv.Select(EtcdGroup)
		if err != nil || len(members) != 1 || members[0].Name != EtcdHostName || members[0].Port() != 2202 {
			t.Errorf("the etcd group selects %v (%v), want %s at port 2202", members, err, EtcdHostName)
		}
	}
}

// filesLab writes the files of a lab with controller-0 (a real lab's with its etcd host at port
// 2202) into a new folder, with no container behind them.
func filesLab(t *testing.T, real bool) *Lab {
	t.Helper()
	dir := t.TempDir()
	keys, err := newClientKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := &Lab{Name: "kupgrade-lab-real-test", Dir: dir, keys: keys,
		nodes: []*Node{{Name: "controller-0", Role: "controller", Port: 2201, HostKey: keys.signer.PublicKey()}}}
	if real {
		etcd := &Node{Name: EtcdHostName, Role: EtcdGroup, Port: 2202, HostKey: keys.signer.PublicKey()}
		l.real = &realLab{build: RealBuildOf(RealVersions...), etcd: etcd}
	}
	if err := l.writeFiles(); err != nil {
		t.Fatal(err)
	}
	return l
}

// The recipe's parts are keyed separately: the binaries by build.sh alone, the image archives
// and packages (one file per version) by their recipes, so that changing the node's scripts or
// the versions rebuilds neither Kubernetes nor the archives and packages of a version built.
func TestRealBuildKeys(t *testing.T) {
	a := RealBuildOf(RealVersions...)
	b := RealBuildOf(RealFromVersion, "v1.31.0")
	if a.BinDir != b.BinDir || a.ImageDir != b.ImageDir || a.PkgDir != b.PkgDir {
		t.Errorf("binaries, archives or packages keyed by the versions: %+v vs %+v", a, b)
	}
	if a.NodeImage == b.NodeImage {
		t.Errorf("node images of two version lists share a key: %s", a.NodeImage)
	}
	if a.From != RealFromVersion || a.To != RealToVersion {
		t.Errorf("RealBuildOf(%v): from %s, next %s", RealVersions, a.From, a.To)
	}
	if got := a.packageFile("kubectl", "v1.32.2"); !strings.HasSuffix(got, "/repo/core:/stable:/v1.32/deb/kubectl_1.32.2-1.1_"+debArch()+".deb") {
		t.Errorf("kubectl v1.32.2's package is looked for at %s", got)
	}
	if !strings.HasPrefix(a.NodeImage, RealNodeRepository+":") {
		t.Errorf("node image %s not in %s", a.NodeImage, RealNodeRepository)
	}
}
