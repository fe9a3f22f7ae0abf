package sim

import (
	"bytes"
	"context"
	"github.com/kupgrade/kupgrade/internal/fencefile"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/state"
)

// The simulated kubeadm renders the lab's own templates.
func TestTemplatesAreTheLabs(t *testing.T) {
	for _, name := range []string{"kube-apiserver.yaml", "kube-controller-manager.yaml", "kube-scheduler.yaml", "kubelet-config.yaml"} {
		lab, err := os.ReadFile(filepath.Join("..", "..", "integration", "lab", "image", "rootfs", "usr", "share", "kupgrade-lab", "templates", name))
		if err != nil {
			t.Fatal(err)
		}
		ours, _ := templates.ReadFile("templates/" + name)
		if !bytes.Equal(lab, ours) {
			t.Errorf("templates/%s differs from the lab's: copy it again", name)
		}
	}
}

func newTestFleet(t *testing.T) *Fleet {
	f, err := Start(Options{Clusters: 1, Controllers: 2, Workers: 1, From: "v1.29.4", To: "v1.30.1", Dir: t.TempDir(),
		LateFailure: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func run(t *testing.T, h *Host, script string) (int, string, string) {
	var out, errb bytes.Buffer
	rc := h.Run(context.Background(), script, nil, nil, &out, &errb)
	return rc, out.String(), errb.String()
}

// kubeadm's own probe reads the simulated node as it reads a lab node: before the upgrade the
// manifests at the old version, after a late failure the kubelet config rewritten.
func TestProbeReadsTheSimulatedNode(t *testing.T) {
	f := newTestFleet(t)
	c0, c1 := f.Clusters[0].Hosts[0], f.Clusters[0].Hosts[1]
	probe := func(h *Host) kubeadm.Snapshot {
		script, _ := kubeadm.Prober{}.Command()
		rc, out, errs := run(t, h, script)
		s, err := kubeadm.ParseReport([]byte(out))
		if rc != 0 || err != nil {
			t.Fatalf("probe: rc %d, %v, %s", rc, err, errs)
		}
		s.Taken = time.Now().UTC() // as Prober.Probe stamps it
		return s
	}
	before := probe(c1)
	if v := before.ControlPlaneVersion(); v != "v1.29.4" {
		t.Fatalf("control plane %q before, want v1.29.4", v)
	}
	if rc, _, errs := run(t, c0, "kubeadm upgrade apply v1.30.1 --yes"); rc != 0 {
		t.Fatalf("upgrade apply: %d %s", rc, errs)
	}
	rc, _, errs := run(t, c1, "sudo -n -u root -- sh -c 'kubeadm upgrade node'")
	if rc != 1 || !strings.Contains(errs, "error execution phase kubelet-config") {
		t.Fatalf("the late failure: rc %d, %s", rc, errs)
	}
	if f := kubeadm.Classify(before, probe(c1), "v1.30.1"); f.Class != "kubelet-config-rewritten" {
		t.Errorf("finding %s (%s), want kubelet-config-rewritten", f.Class, f.Summary)
	}
	if rc, _, _ := run(t, c1, "kubeadm upgrade node"); rc != 0 {
		t.Error("the late failure came twice")
	}
}

// The fence refuses an older generation of the same key, as the runner's fence script does.
func TestFenceRefusesAnOlderGeneration(t *testing.T) {
	h := newTestFleet(t).Clusters[0].Hosts[0]
	fence := func(gen string) (int, string) {
		rc, _, errs := run(t, h, "exec sh -c '"+fenceScriptStart+"' kupgrade-fence /var/lib/kupgrade 1 lab up1 "+gen+" me 30 label sh -c 'echo ran'")
		return rc, errs
	}
	if rc, errs := fence("3"); rc != 0 {
		t.Fatalf("generation 3: %d %s", rc, errs)
	}
	if rc, errs := fence("2"); rc != 75 || !strings.Contains(errs, "kupgrade fence: a newer operation (generation 3") {
		t.Errorf("generation 2 after 3: rc %d, %s", rc, errs)
	}
	rc, _, errs := run(t, h, "exec sh -c '"+fenceScriptStart+"' kupgrade-fence /var/lib/kupgrade 1 c0001 up9 1 me 30 label sh -c 'echo ran'")
	if rc != 75 || !strings.Contains(errs, "live upgrade of cluster lab") {
		t.Errorf("another cluster's command within the claim: rc %d, %s", rc, errs)
	}
	if s, _ := h.File("/var/lib/kupgrade/fence"); !strings.HasPrefix(s, fencefile.Version+" ") {
		t.Errorf("stamp %q, not in fencefile's format", s)
	}
}

func TestCheckOneOperationFindsAnOverlap(t *testing.T) {
	ev := func(id int64, from, to state.State, hf, ht state.HostStatus) state.Event {
		return state.Event{ID: id, Cluster: "c", FromState: from, ToState: to, FromHostStatus: hf, ToHostStatus: ht}
	}
	ok := []state.Event{
		ev(1, state.UpgradeStarted, state.DownloadingImages, "", ""),
		ev(2, state.DownloadingImages, state.DownloadedImages, "", ""),
		ev(3, state.UpgradingKubelets, state.UpgradingKubelets, "", state.DrainingNode),
		ev(4, state.UpgradingKubelets, state.UpgradingKubelets, state.DrainingNode, state.UpgradingKubelet),
		ev(5, state.UpgradingKubelets, state.UpgradingKubelets, state.UpgradingKubelet, state.UncordoningNode),
		ev(6, state.UpgradingKubelets, state.UpgradingKubelets, state.UncordoningNode, state.UpgradedKubelet),
	}
	if err := CheckOneOperation(ok); err != nil {
		t.Errorf("sequential operations: %v", err)
	}
	bad := append(ok[:4:4], ev(7, state.UpgradingKubelets, state.UpgradingKubelets, "", state.DrainingNode))
	if err := CheckOneOperation(bad); err == nil {
		t.Error("two kubelet operations at once were not found")
	}
}

// As the lab's kubeadm: `upgrade apply` of the cluster's own version again is a redo, allowed;
// a downgrade and a jump of two minors are refused.
func TestApplyVersionPolicy(t *testing.T) {
	c0 := newTestFleet(t).Clusters[0].Hosts[0]
	for _, tc := range []struct {
		v  string
		rc int
	}{{"v1.30.1", 0}, {"v1.30.1", 0}, {"v1.29.4", 1}, {"v1.32.0", 1}} {
		if rc, _, errs := run(t, c0, "kubeadm upgrade apply "+tc.v+" --yes"); rc != tc.rc {
			t.Errorf("upgrade apply %s: rc %d, want %d (%s)", tc.v, rc, tc.rc, errs)
		}
	}
}
