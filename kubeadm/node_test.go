package kubeadm_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/fencefile"
	"github.com/kupgrade/kupgrade/kubeadm"
)

// The host paths kubeadm writes (docs/kubeadm.md); the folder names carry the suffixes a real kubeadm
// gives them (os.MkdirTemp's digits, the backup's timestamp).
const (
	configFile     = "var/lib/kubelet/config.yaml"
	manifestsDir   = "etc/kubernetes/manifests"
	upgradedDir    = "etc/kubernetes/tmp/kubeadm-upgraded-manifests3497510837"
	manifestBackup = "etc/kubernetes/tmp/kubeadm-backup-manifests-2025-07-15-09-12-41"
	kubeletBackup  = "etc/kubernetes/tmp/kubeadm-kubelet-config1882233417"
)

var staticPods = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// localExec runs the probe's script on this machine, as the runner runs it on a host.
func localExec(ctx context.Context, script string, env map[string]string) (int, string, string, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), so.String(), se.String(), nil
	}
	return cmd.ProcessState.ExitCode(), so.String(), se.String(), err
}

// node is a host's disk below a temporary root, laid out from testdata as kubeadm left it at
// fromTag, and changed the way kubeadm changes it.
type node struct {
	t    *testing.T
	root string
}

func newNode(t *testing.T, controller bool) *node {
	t.Helper()
	n := &node{t: t, root: t.TempDir()}
	n.mkdir("etc/kubernetes/tmp")
	n.copyIn(filepath.Join("kubelet", "config-"+fromTag+".yaml"), configFile)
	if controller {
		for _, c := range staticPods {
			n.copyIn(filepath.Join("manifests", fromTag, c+".yaml"), manifestsDir+"/"+c+".yaml")
		}
	}
	return n
}

func (n *node) path(rel string) string { return filepath.Join(n.root, rel) }

func (n *node) probe() kubeadm.Snapshot {
	n.t.Helper()
	s, err := kubeadm.Prober{Root: n.root}.Probe(n.t.Context(), localExec)
	if err != nil {
		n.t.Fatal(err)
	}
	return s
}

// writeUpgraded is kubeadm writing every new manifest into its temporary folder.
func (n *node) writeUpgraded() {
	for _, c := range staticPods {
		n.copyIn(filepath.Join("manifests", toTag, c+".yaml"), upgradedDir+"/"+c+".yaml")
	}
}

// swap is kubeadm moving the live manifest of c into the backup folder and the new one in.
func (n *node) swap(c string) {
	n.mkdir(manifestBackup)
	n.rename(manifestsDir+"/"+c+".yaml", manifestBackup+"/"+c+".yaml")
	n.rename(upgradedDir+"/"+c+".yaml", manifestsDir+"/"+c+".yaml")
}

// rollBack is kubeadm restoring c's old manifest after it did not come back; the backup keeps
// its copy.
func (n *node) rollBack(c string) {
	n.rename(manifestsDir+"/"+c+".yaml", upgradedDir+"/"+c+".yaml")
	n.copyFile(n.path(manifestBackup+"/"+c+".yaml"), manifestsDir+"/"+c+".yaml")
}

// kubeletConfigPhase is the kubelet-config phase: a backup copy (when kubeadm makes one), then
// the new config.yaml from testdata/kubelet/<config>.
func (n *node) kubeletConfigPhase(backup bool, config string) {
	if backup {
		n.mkdir(kubeletBackup)
		n.copyFile(n.path(configFile), kubeletBackup+"/config.yaml")
	}
	n.copyIn(filepath.Join("kubelet", config), configFile)
}

// fenceStamp is the stamp a kupgrade command left on the host's fence (runner.Fence).
var fenceStamp = strings.TrimSuffix(fencefile.Stamp{Cluster: "lab", Key: "9f0c2d4e-5b1a-4c3e-8d7f-0a1b2c3d4e5f", Generation: 7,
	Owner: "ops-1:4242:Xk2p", Since: time.Date(2025, 7, 15, 9, 12, 30, 0, time.UTC), Until: time.Date(2025, 7, 15, 9, 13, 0, 0, time.UTC),
	Label: fencefile.Label("Upgrade the node", "kubeadm upgrade node")}.Line(), "\n")

// stampFence is a kupgrade command having taken the host's fence: the lock file and its stamp.
func (n *node) stampFence() {
	n.t.Helper()
	n.mkdir("var/lib/kupgrade")
	if err := os.WriteFile(n.path("var/lib/kupgrade/fence.lock"), nil, 0o644); err != nil {
		n.t.Fatal(err)
	}
	if err := os.WriteFile(n.path("var/lib/kupgrade/fence"), []byte(fenceStamp+"\n"), 0o644); err != nil {
		n.t.Fatal(err)
	}
}

// holdFence is that command still running: it holds the lock until the test ends.
func (n *node) holdFence() {
	n.t.Helper()
	f, err := os.Open(n.path("var/lib/kupgrade/fence.lock"))
	if err != nil {
		n.t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(func() { f.Close() })
}

func (n *node) copyIn(testdata, rel string) {
	n.copyFile(filepath.Join("testdata", testdata), rel)
}

func (n *node) copyFile(src, rel string) {
	n.t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		n.t.Fatal(err)
	}
	n.mkdir(filepath.Dir(rel))
	if err := os.WriteFile(n.path(rel), b, 0o600); err != nil {
		n.t.Fatal(err)
	}
}

func (n *node) mkdir(rel string) {
	n.t.Helper()
	if err := os.MkdirAll(n.path(rel), 0o755); err != nil {
		n.t.Fatal(err)
	}
}

func (n *node) rename(from, to string) {
	n.t.Helper()
	if err := os.Rename(n.path(from), n.path(to)); err != nil {
		n.t.Fatal(err)
	}
}

func (n *node) remove(rel string) {
	n.t.Helper()
	if err := os.Remove(n.path(rel)); err != nil {
		n.t.Fatal(err)
	}
}

func (n *node) removeAll(rel string) {
	n.t.Helper()
	if err := os.RemoveAll(n.path(rel)); err != nil {
		n.t.Fatal(err)
	}
}
