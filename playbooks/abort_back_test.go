package playbooks

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/jinja"
)

// fakeKubectl is a kubectl that keeps kubeadm-config's ClusterConfiguration in dir/cc: get with
// jsonpath prints it, get -o yaml prints the ConfigMap, replace -f - writes the
// kubernetesVersion it reads back into cc and logs "replace" in dir/calls.
func fakeKubectl(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
D=` + dir + `
case "$*" in
*jsonpath*) cat "$D/cc" ;;
*"-o yaml"*) printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kubeadm-config\n  resourceVersion: "42"\ndata:\n  ClusterConfiguration: |\n'; sed 's/^/    /' "$D/cc" ;;
*replace*) v=$(sed -n 's/^ *kubernetesVersion: *//p'); sed -i "s/^kubernetesVersion: .*/kubernetesVersion: $v/" "$D/cc"; echo replace >> "$D/calls"; echo "configmap/kubeadm-config replaced" ;;
*) echo "fake kubectl: $*" >&2; exit 2 ;;
esac
`
	if err := os.WriteFile(filepath.Join(dir, "kubectl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cc := "apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nkubernetesVersion: " + version + "\nclusterName: kubernetes\n"
	if err := os.WriteFile(filepath.Join(dir, "cc"), []byte(cc), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Abort puts kubeadm-config's kubernetesVersion back at the from version only when it holds a
// version of this upgrade, through a replace of the object as read, and reads it back; a
// version this upgrade did not write is left alone.
func TestAbortPutsKubernetesVersionBack(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, tc := range []struct{ now, want string }{
		{"v1.30.1", "v1.29.4"}, // this upgrade's
		{"v1.29.4", "v1.29.4"}, // back already
		{"v1.28.0", "v1.28.0"}, // not this upgrade's: left alone
		{"", ""},               // not readable: left alone, saying so
	} {
		dir := fakeKubectl(t, tc.now)
		if tc.now == "" {
			if err := os.WriteFile(filepath.Join(dir, "cc"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		task := shippedTask(t, "abort", "Put kubeadm's ClusterConfiguration", map[string]any{})
		script, err := jinja.Render(task.Args["_raw_params"].(string), map[string]any{"admin_kubectl": "kubectl"})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), "sh", "-c", script.(string))
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "KUPGRADE_FROM=v1.29.4", "KUPGRADE_MOVED=v1.30.0 v1.30.1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubernetesVersion %s: %v\n%s", tc.now, err, out)
		}
		cc, _ := os.ReadFile(filepath.Join(dir, "cc"))
		calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
		if tc.now == "" && (len(calls) > 0 || !strings.Contains(string(out), "could not be read")) {
			t.Errorf("unreadable kubeadm-config: replaced %q, said %q", calls, out)
		}
		if tc.now != "" && !strings.Contains(string(cc), "kubernetesVersion: "+tc.want+"\n") || (tc.now != tc.want) != strings.Contains(string(calls), "replace") {
			t.Errorf("kubernetesVersion %s: now %q, replaced %q, want %s:\n%s", tc.now, cc, calls, tc.want, out)
		}
	}
}

// Taking a kubelet back puts back the config.yaml with the checksum it had before the upgrade,
// from a folder kubeadm made during it; with no such copy it fails before anything changes.
func TestKubeletBackPutsTheConfigBack(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	root := t.TempDir()
	oldCfg, newCfg := "kind: KubeletConfiguration # v1.29\n", "kind: KubeletConfiguration # v1.30\n"
	sum := sha256.Sum256([]byte(oldCfg))
	task := shippedTask(t, "kubelet", "Put back the kubelet config", map[string]any{"to_version": "v1.29.4", "group_names": []any{"workers"},
		"inventory_hostname": "worker-0", "groups": map[string]any{"controllers": []any{"controller-0"}}})
	script := strings.ReplaceAll(task.Args["_raw_params"].(string), "/var/lib/kubelet", root)
	write := func(rel, s string) string { return writeUnder(t, root, rel, s) }
	run := func(dirs string) (string, error) {
		cmd := exec.CommandContext(t.Context(), "sh", "-c", script)
		cmd.Env = append(os.Environ(), "KUPGRADE_CONFIG_SHA="+hex.EncodeToString(sum[:]), "KUPGRADE_KUBELET_DIRS="+dirs)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	write("config.yaml", newCfg)
	other := write("tmp/kubeadm-kubelet-config1/config.yaml", "kind: KubeletConfiguration # v1.28\n")
	if out, err := run(other); err == nil || !strings.Contains(out, "were not installed") {
		t.Errorf("no copy with the checksum: %v, want a failure saying nothing was installed:\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "config.yaml")); string(b) != newCfg {
		t.Errorf("a failed put-back changed config.yaml: %q", b)
	}
	saved := write("tmp/kubeadm-kubelet-config2/config.yaml", oldCfg)
	if out, err := run(other + "\n" + saved); err != nil || !strings.Contains(out, "restored") {
		t.Fatalf("put back: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "config.yaml")); string(b) != oldCfg {
		t.Errorf("config.yaml after the put-back: %q, want the copy from before the upgrade", b)
	}
}
