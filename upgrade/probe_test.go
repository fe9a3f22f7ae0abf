package upgrade_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/upgrade"
)

// ProbeHost: the runner runs kubeadm's script as root over the connection, kubeadm reads it.
func TestProbeHost(t *testing.T) {
	c := &runnertest.FakeConn{Results: map[string]runnertest.Result{"sha256sum": {Stdout: "config\tmissing\n" +
		"manifest\tkube-apiserver\t    image: registry.k8s.io/kube-apiserver:v1.31.10\nend\n"}}}
	s, err := upgrade.ProbeHost(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if s.ConfigExists || s.ControlPlaneVersion() != "v1.31.10" || s.Taken.IsZero() {
		t.Errorf("snapshot = %+v", s)
	}
	if calls := c.Calls(); len(calls) != 1 || !strings.HasPrefix(calls[0], "exec sudo -n -u root -- sh -c ") {
		t.Errorf("calls = %q, want the probe in one command under sudo", calls)
	}
}

// The seed case through a play, as `kupgrade play` and the workflow run it: the runner with
// kubeadm's modules plugged in, kubeadm rewriting config.yaml after backing it up, then failing.
func TestKubeletConfigModuleInAPlay(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("var/lib/kubelet/config.yaml", "old config\n")
	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		write("etc/kubernetes/manifests/"+c+".yaml", "spec:\n  containers:\n  - image: registry.k8s.io/"+c+":v1.29.6\n")
	}
	write("etc/kubernetes/tmp/kubeadm-kubelet-config1/.keep", "")
	kubeadmCmd := "cp " + root + "/var/lib/kubelet/config.yaml " + root + "/etc/kubernetes/tmp/kubeadm-kubelet-config1/config.yaml; " +
		"for f in " + root + "/etc/kubernetes/manifests/kube-*.yaml; do sed -i s/v1.29.6/v1.30.2/ $f; done; " +
		"echo new > " + root + "/var/lib/kubelet/config.yaml; echo 'addon phase failed' >&2; exit 1"
	invPath := filepath.Join(root, "inventory.yml")
	write("inventory.yml", "all:\n  hosts:\n    h1:\n")
	inv, err := inventory.Load(invPath)
	if err != nil {
		t.Fatal(err)
	}
	pb := &playbooks.Playbook{File: filepath.Join(root, "p.yml"), Plays: []*playbooks.Play{{
		Name: "seed", Hosts: "all",
		Tasks: []*playbooks.Task{
			{Name: "before", Module: "kubelet_config", Args: map[string]any{"root": root}, Register: "kcfg_before"},
			{Name: "kubeadm", Module: "shell", Args: map[string]any{"_raw_params": kubeadmCmd}, IgnoreErrors: true},
			{Name: "after", Module: "kubelet_config", Register: "kcfg_after",
				Args: map[string]any{"root": root, "compare_to": "{{ kcfg_before }}", "target": "v1.30.2"}},
		},
	}}}
	r := runner.New(&runnertest.LocalDialer{}, runner.Options{Modules: kubeadm.Modules()})
	defer r.Close()
	recap, err := r.Play(t.Context(), pb, inv, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := recap.Registered["h1"]["kcfg_before"].(map[string]any)
	if before["control_plane_version"] != "v1.29.6" {
		t.Errorf("before: control_plane_version = %v", before["control_plane_version"])
	}
	f := recap.Registered["h1"]["kcfg_after"].(map[string]any)["finding"].(map[string]any)
	if f["class"] != kubeadm.FindingConfigRewritten || !strings.Contains(f["summary"].(string), "kubeadm-kubelet-config1") {
		t.Errorf("finding = %v", f)
	}
}
