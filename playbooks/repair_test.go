package playbooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The control-plane playbook's repair of a manifest an interrupted kubeadm left missing copies
// it from a folder made during this upgrade holding it at the tag the upgrade found; a folder
// that was there before the upgrade (kupgrade_backup_existing) is never read, however new, and
// with no copy of this upgrade's it refuses, naming the file.
func TestRepairUsesThisUpgradesBackupOnly(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	root := t.TempDir()
	write := func(rel, content string) string { return writeUnder(t, root, rel, content) }
	task := shippedTask(t, "control-plane", "Restore a manifest", map[string]any{})
	script := strings.ReplaceAll(task.Args["_raw_params"].(string), "/etc/kubernetes", root)
	img := func(c, v string) string { return "    image: registry.k8s.io/" + c + ":" + v + "\n" }
	run := func(existing string) (string, error) {
		cmd := exec.CommandContext(t.Context(), "sh", "-c", script)
		cmd.Env = append(os.Environ(), "KUPGRADE_TAGS=kube-apiserver v1.29.4\nkube-scheduler v1.29.4", "KUPGRADE_EXISTING="+existing)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	write("manifests/kube-scheduler.yaml", img("kube-scheduler", "v1.29.4"))
	write("manifests/kube-controller-manager.yaml", img("kube-controller-manager", "v1.29.4"))
	old := write("tmp/kubeadm-backup-manifests-2099-01-01-00-00-00/kube-apiserver.yaml", img("kube-apiserver", "v1.29.4"))
	out, err := run(old)
	if err == nil || !strings.Contains(out, "kube-apiserver.yaml is missing") || !strings.Contains(out, "made during this upgrade") {
		t.Fatalf("only an older upgrade's folder: %v, want a refusal naming the file:\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, "manifests/kube-apiserver.yaml")); err == nil {
		t.Fatal("the manifest was restored from a folder that was there before the upgrade")
	}
	write("tmp/kubeadm-backup-manifests-2024-01-01-00-00-00/kube-apiserver.yaml", img("kube-apiserver", "v1.29.4"))
	if out, err := run(old); err != nil || !strings.Contains(out, "from "+root+"/tmp/kubeadm-backup-manifests-2024-01-01-00-00-00") {
		t.Fatalf("with this upgrade's folder: %v:\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "manifests/kube-apiserver.yaml")); string(got) != img("kube-apiserver", "v1.29.4") {
		t.Errorf("restored manifest %q", got)
	}
}
