//go:build integration

package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
)

// A real lab's inventory hands kupgrade the real installers, the systemctl shim, its next
// version and its own download-images playbook, which kupgrade must be able to load.
func TestRealInventory(t *testing.T) {
	dir := t.TempDir()
	keys, err := newClientKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := &Lab{Name: "kupgrade-lab-real-test", Dir: dir, keys: keys,
		real:  &realLab{build: RealBuildOf(RealVersions...)},
		nodes: []*Node{{Name: "controller-0", Role: "controller", Port: 2201, HostKey: keys.signer.PublicKey()}}}
	if err := l.writeFiles(); err != nil {
		t.Fatal(err)
	}
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
	if got, _ := h.Vars["kupgrade_kubelet_install"].(string); !strings.HasPrefix(got, RealInstallCommand+" kubelet ") {
		t.Errorf("kupgrade_kubelet_install = %q, want the real installer", got)
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
