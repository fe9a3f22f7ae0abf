package kubeadm_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/modules"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestModules: kubeadm's registry holds the built-in modules and kubelet_config, which no
// built-in module may take.
func TestModules(t *testing.T) {
	r := kubeadm.Modules()
	if r.Lookup("kubelet_config") == nil || r.Lookup("command") == nil {
		t.Errorf("modules = %v, want the built-ins and kubelet_config", r.Names())
	}
	if modules.Builtins().Lookup("kubelet_config") != nil {
		t.Error("a built-in module is named kubelet_config: kubeadm's cannot be added")
	}
}

// TestKubeletConfigModule is the seed case through the module as a playbook runs it: the
// snapshot before is handed back as compare_to (the registered map), kubeadm rewrites config.yaml
// after backing it up, and the module registers the finding.
func TestKubeletConfigModule(t *testing.T) {
	n := newNode(t, true)
	mod := kubeadm.Modules().Lookup("kubelet_config")
	task := &modules.Task{Host: "h1", Conn: &runnertest.LocalConn{}, Become: false}
	before, err := mod(t.Context(), task, map[string]any{"root": n.root})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"config_exists", "config_sha256", "config_mtime", "manifests", "control_plane_version",
		"upgraded_manifests_dirs", "backup_dirs", "kubelet_config_backups", "changed", "taken"} {
		if _, ok := before[k]; !ok {
			t.Errorf("kubelet_config result lacks %s", k)
		}
	}
	old, _ := os.ReadFile(n.path(configFile))
	sum := sha256.Sum256(old)
	if before["control_plane_version"] != fromTag || before["config_sha256"] != hex.EncodeToString(sum[:]) || before["finding"] != nil {
		t.Errorf("before = %v", before)
	}
	controlPlanePhase(n)
	n.kubeletConfigPhase(true, "config-"+toTag+".yaml")
	after, err := mod(t.Context(), task, map[string]any{"root": n.root, "compare_to": before, "target": toTag})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := after["finding"].(map[string]any)
	if f["class"] != kubeadm.FindingConfigRewritten || !strings.Contains(f["summary"].(string), "kubeadm-kubelet-config1882233417") || f["next"] == "" {
		t.Errorf("finding = %v", f)
	}
	if _, err := mod(t.Context(), task, map[string]any{"root": n.root, "compare_to": "{not json"}); err == nil ||
		!strings.HasPrefix(err.Error(), "kubelet_config: compare_to: read snapshot:") {
		t.Errorf("a bad compare_to: %v", err)
	}
}

// The root travels in the environment, never spliced into the script: any folder name works.
func TestProbeRootWithQuotes(t *testing.T) {
	n := newNode(t, true)
	odd := filepath.Join(filepath.Dir(n.root), "it's a \"node\" $HOME")
	if err := os.Rename(n.root, odd); err != nil {
		t.Fatal(err)
	}
	s, err := kubeadm.Prober{Root: odd + "/"}.Probe(t.Context(), localExec)
	if err != nil || !s.ConfigExists || s.ControlPlaneVersion() != fromTag || s.Taken.IsZero() {
		t.Errorf("probe below %q: %+v %v", odd, s, err)
	}
	if script, env := (kubeadm.Prober{}).Command(); !strings.HasPrefix(script, "r=\n") || env != nil {
		t.Errorf("the host's own root needs no environment: %q %v", script[:20], env)
	}
}

func TestProbeErrors(t *testing.T) {
	cases := []struct {
		name string
		exec kubeadm.Exec
		want string
	}{
		{"exit status", func(context.Context, string, map[string]string) (int, string, string, error) {
			return 1, "", "sha256sum: permission denied\n", nil
		}, "run kubelet-config probe: exit 1: sha256sum: permission denied"},
		{"transport", func(context.Context, string, map[string]string) (int, string, string, error) {
			return -1, "", "", context.DeadlineExceeded
		}, "run kubelet-config probe: context deadline exceeded"},
		{"cut short", func(context.Context, string, map[string]string) (int, string, string, error) {
			return 0, "config\tmissing\n", "", nil
		}, "parse kubelet-config probe: report cut short (no end line)"},
	}
	for _, c := range cases {
		if _, err := (kubeadm.Prober{}).Probe(t.Context(), c.exec); err == nil || err.Error() != c.want {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestKubeletVersion(t *testing.T) {
	for out, want := range map[string]string{
		"Kubernetes v1.31.10\n":        "v1.31.10",
		"Kubernetes v1.31.0-rc.1\n":    "v1.31.0",
		"kubelet: command not found\n": "",
		"Kubernetes version unknown\n": "",
	} {
		got, ok := kubeadm.KubeletVersion(out)
		if got != want || ok != (want != "") {
			t.Errorf("KubeletVersion(%q) = %q %v, want %q", out, got, ok, want)
		}
	}
}
