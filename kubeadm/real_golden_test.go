package kubeadm_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/kubeadm"
)

// realCases classify disks the real kubeadm left, captured in the real lab (integration
// TestRealSeed with KUPGRADE_REAL_CAPTURE; testdata/real/README.md says how): each names the
// capture from before the step and the one after it, below testdata/real.
var realCases = []struct {
	name, before, after string
}{
	// kubeadm upgrade apply killed by --kubeadm-timeout while it waited, in its control-plane
	// phase, for a kube-apiserver the frozen kubelet never restarted.
	{"real-apply-hung-in-control-plane", "controller-0-before", "controller-0-hung-in-control-plane"},
	// kubeadm upgrade node failed right after its real kubelet-config phase: the seed.
	{"real-node-failed-after-kubelet-config", "controller-1-before", "controller-1-after-kubelet-config"},
}

// realTarget is the version the real lab upgrades to (lab.RealToVersion).
const realTarget = "v1.31.1"

func TestGoldenReal(t *testing.T) {
	for _, c := range realCases {
		t.Run(c.name, func(t *testing.T) {
			before := probeTree(t, filepath.Join("testdata", "real", c.before))
			after := probeTree(t, filepath.Join("testdata", "real", c.after))
			f := kubeadm.Classify(before, after, realTarget)
			checkGolden(t, filepath.Join("testdata", "golden", c.name+".txt"), render(f))
		})
	}
}

// probeTree runs the probe script on a captured tree. The capture's files are read-only in
// spirit: the probe only reads.
func probeTree(t *testing.T, root string) kubeadm.Snapshot {
	t.Helper()
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("capture %s: %v", root, err)
	}
	s, err := kubeadm.Prober{Root: root}.Probe(t.Context(), localExec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
