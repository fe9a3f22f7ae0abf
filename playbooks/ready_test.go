package playbooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The control-plane step ends only once this controller's own API server says it is ready: the
// playbook asks /readyz at the advertise address and secure port of its kube-apiserver manifest
// (brackets around an IPv6 address), and a controller without kubectl is not waited for.
func TestWaitAsksThisControllersAPIServer(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	root := t.TempDir()
	bin := writeUnder(t, root, "bin/kubectl", "#!/bin/sh\necho \"$@\"\n")
	if err := os.Chmod(filepath.Join(bin, "kubectl"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeUnder(t, root, "admin.conf", "apiVersion: v1\n")
	task := shippedTask(t, "control-plane", "Wait for this controller's API server", map[string]any{})
	script := strings.NewReplacer("/etc/kubernetes/manifests", root, "/etc/kubernetes/admin.conf", filepath.Join(root, "admin.conf")).
		Replace(task.Args["_raw_params"].(string))
	run := func(path, manifest string) string {
		writeUnder(t, root, "kube-apiserver.yaml", manifest)
		cmd := exec.CommandContext(t.Context(), "sh", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		return string(out)
	}
	path := bin + ":" + os.Getenv("PATH")
	for manifest, want := range map[string]string{
		"    - --advertise-address=10.0.0.5\n    - --secure-port=7443\n": "--server=https://10.0.0.5:7443 get --raw /readyz",
		"    - --advertise-address=fd00::5\n":                            "--server=https://[fd00::5]:6443 get --raw /readyz",
		"    - --etcd-servers=http://etcd:2379\n":                        "--server=https://127.0.0.1:6443 get --raw /readyz",
	} {
		if got := run(path, manifest); !strings.Contains(got, want) {
			t.Errorf("manifest %q: kubectl was asked %q, want %q", manifest, got, want)
		}
	}
	if got := run("/nonexistent", "    - --advertise-address=10.0.0.5\n"); !strings.Contains(got, "not waited for") {
		t.Errorf("without kubectl: %q, want it not waited for", got)
	}
}
