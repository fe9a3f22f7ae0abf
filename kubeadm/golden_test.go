package kubeadm_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/kubeadm"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// The upgrade the golden cases stop in the middle of.
const (
	fromTag = "v1.30.14"
	toTag   = "v1.31.10"
)

// goldenCase is one row of docs/kubeadm.md's "What a failure leaves behind": what kubeadm did on the
// host's disk before it stopped.
type goldenCase struct {
	name     string
	worker   bool
	noBefore bool // recover after a crash of kupgrade: no snapshot from before the step
	kubeadm  func(n *node)
}

var goldenCases = []goldenCase{
	{name: "preflight", kubeadm: func(n *node) {}},
	{name: "control-plane-timed-out", kubeadm: func(n *node) {
		n.writeUpgraded()
		n.swap("kube-apiserver")
		n.rollBack("kube-apiserver") // the temporary folder stays: kubeadm failed before removing it
	}},
	{name: "control-plane-killed-mid-swap", kubeadm: func(n *node) {
		n.writeUpgraded()
		n.swap("kube-apiserver")
	}},
	{name: "after-control-plane", kubeadm: controlPlanePhase},
	{name: "after-kubelet-config", kubeadm: func(n *node) {
		controlPlanePhase(n)
		n.kubeletConfigPhase(true, "config-"+toTag+".yaml")
	}},
	// The addon and post-upgrade phases change nothing on the node's disk: a success looks like
	// a failure after kubelet-config.
	{name: "all-phases-done", kubeadm: func(n *node) {
		controlPlanePhase(n)
		n.kubeletConfigPhase(true, "config-"+toTag+".yaml")
	}},
	{name: "all-phases-done-no-backup", kubeadm: func(n *node) { // older kubeadm releases
		controlPlanePhase(n)
		n.kubeletConfigPhase(false, "config-"+toTag+".yaml")
	}},
	// An unchanged kubelet-config ConfigMap: kubeadm writes the same bytes again (the real
	// v1.30 -> v1.31 upgrade does). Only the new backup folder shows that the phase ran, and the
	// classification reads it so (testdata/real: the seed on the real kubeadm looks like this).
	{name: "kubelet-config-same-bytes", kubeadm: func(n *node) {
		controlPlanePhase(n)
		n.kubeletConfigPhase(true, "config-"+fromTag+".yaml")
	}},
	{name: "kubelet-config-missing-backup-holds-it", kubeadm: func(n *node) { // renamed first, then died
		controlPlanePhase(n)
		n.mkdir(kubeletBackup)
		n.rename(configFile, kubeletBackup+"/config.yaml")
	}},
	{name: "kubelet-config-missing-no-backup", kubeadm: func(n *node) {
		controlPlanePhase(n)
		n.remove(configFile)
	}},
	{name: "worker-after-kubelet-config", worker: true, kubeadm: func(n *node) {
		n.kubeletConfigPhase(true, "config-"+toTag+".yaml")
	}},
	// kupgrade lost its lease while its kubeadm hung; the retry's kubeadm was refused by the
	// host's fence, which the first one still holds.
	{name: "fence-busy", kubeadm: func(n *node) {
		n.stampFence()
		n.holdFence()
	}},
	// The fence's last command has ended: its stamp stays, the advice does not change.
	{name: "fence-free", kubeadm: func(n *node) { n.stampFence() }},
	{name: "recover-after-crash-mid-swap", noBefore: true, kubeadm: func(n *node) {
		n.writeUpgraded()
		n.swap("kube-apiserver")
		n.swap("kube-controller-manager")
	}},
}

// controlPlanePhase is a finished control-plane phase: etcd's manifest is equal and skipped, the
// others are swapped, the temporary folder is removed.
func controlPlanePhase(n *node) {
	n.writeUpgraded()
	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		n.swap(c)
	}
	n.removeAll(upgradedDir)
}

// TestGolden lays out each case's disk, runs the real probe script on it before and after
// kubeadm's work, and compares the classification with testdata/golden/<case>.txt.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			n := newNode(t, !c.worker)
			var before kubeadm.Snapshot
			if !c.noBefore {
				before = n.probe()
			}
			c.kubeadm(n)
			after := n.probe()
			f := kubeadm.Classify(before, after, toTag)
			checkGolden(t, filepath.Join("testdata", "golden", c.name+".txt"), render(f))
		})
	}
}

// TestGoldenFailureLines reads the line that says why from kubeadm's own output.
func TestGoldenFailureLines(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "output", "*.out"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no kubeadm output under testdata/output (%v)", err)
	}
	var b strings.Builder
	for _, f := range files {
		out, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %s\n", filepath.Base(f), kubeadm.FailureLine(string(out)))
	}
	checkGolden(t, filepath.Join("testdata", "golden", "failure-lines.txt"), b.String())
}

// render is what a golden file holds: the finding as people read it and the snapshot after.
func render(f kubeadm.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "class: %s\nsummary: %s\nnext: %s\n", f.Class, f.Summary, f.Next)
	a := f.After
	fmt.Fprintf(&b, "after:\n  config: exists=%v sha256=%s\n", a.ConfigExists, a.ConfigSHA256)
	comps := make([]string, 0, len(a.Manifests))
	for c := range a.Manifests {
		comps = append(comps, c)
	}
	slices.Sort(comps)
	for _, c := range comps {
		fmt.Fprintf(&b, "  manifest %s: %s\n", c, a.Manifests[c])
	}
	if v := a.ControlPlaneVersion(); v != "" {
		fmt.Fprintf(&b, "  control-plane version: %s\n", v)
	}
	for _, d := range a.UpgradedManifestsDirs {
		fmt.Fprintf(&b, "  upgraded: %s\n", d)
	}
	for _, d := range a.BackupDirs {
		fmt.Fprintf(&b, "  backup: %s\n", d)
	}
	for _, k := range a.KubeletConfigBackups {
		fmt.Fprintf(&b, "  kubelet backup: %s has_config=%v\n", k.Path, k.HasConfig)
	}
	if fe := a.Fence; fe != nil {
		fmt.Fprintf(&b, "  fence: busy=%v damaged=%v cluster=%s key=%s generation=%d owner=%s since=%s command=%q\n",
			fe.Busy, fe.Damaged, fe.Cluster, fe.Key, fe.Generation, fe.Owner, fe.Since.Format(time.RFC3339), fe.Command)
	}
	return b.String()
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./kubeadm -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./kubeadm -update rewrites it):\n--- got\n%s--- want\n%s", path, got, want)
	}
}
