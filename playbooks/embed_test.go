package playbooks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/jinja"
)

func TestEmbeddedLoad(t *testing.T) {
	want := []string{"abort", "check-controllers", "control-plane", "cordon", "download-images", "etcd-restore", "etcd-snapshot", "kubelet", "uncordon"}
	if got := EmbeddedNames(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("EmbeddedNames = %v, want %v", got, want)
	}
	for _, name := range want {
		t.Run(name, func(t *testing.T) {
			pb, err := Embedded(name)
			if err != nil {
				t.Fatal(err)
			}
			if len(pb.Plays) == 0 || len(pb.Plays[0].Tasks) == 0 || pb.File != name+".yml" {
				t.Errorf("%s loaded empty: %+v", name, pb)
			}
		})
	}
	if _, err := Embedded("control-plane.yml"); err != nil {
		t.Errorf("Embedded with the .yml suffix: %v", err)
	}
	if _, err := Embedded("nope"); err == nil || !strings.Contains(err.Error(), "control-plane") {
		t.Errorf("Embedded(nope) = %v, want an error listing the shipped playbooks", err)
	}
}

// shippedTask returns the task of a shipped playbook whose name starts with task, with the
// play's vars rendered into vars first, as the runner does.
func shippedTask(t *testing.T, name, task string, vars map[string]any) *Task {
	t.Helper()
	pb, err := Embedded(name)
	if err != nil {
		t.Fatal(err)
	}
	renderPlayVars(t, pb.Plays[0].Vars, vars)
	for _, tk := range pb.Plays[0].Tasks {
		if strings.HasPrefix(tk.Name, task) {
			return tk
		}
	}
	t.Fatalf("%s has no task %q", name, task)
	return nil
}

// renderPlayVars renders the play's vars into vars, each once those it reads are there (the
// runner renders them lazily, in any order).
func renderPlayVars(t *testing.T, play, vars map[string]any) {
	t.Helper()
	left := maps.Clone(play)
	for pass := 0; len(left) > 0; pass++ {
		var last error
		for k, v := range left {
			r, err := jinja.RenderValue(v, vars)
			if err != nil {
				last = fmt.Errorf("play var %s: %w", k, err)
				continue
			}
			vars[k] = r
			delete(left, k)
		}
		if pass > len(play) {
			t.Fatal(last)
		}
	}
}

func TestControlPlaneCommand(t *testing.T) {
	tests := []struct {
		first any
		want  string
	}{
		{true, "kubeadm upgrade apply v1.30.2 --yes"},
		{"true", "kubeadm upgrade apply v1.30.2 --yes"},
		{false, "kubeadm upgrade node"},
	}
	for _, tt := range tests {
		vars := map[string]any{"to_version": "v1.30.2", "first_controller": tt.first, "kubeadm_timeout": "15m0s"}
		task := shippedTask(t, "control-plane", "kubeadm upgrade", vars)
		got, err := jinja.RenderString(task.Args["_raw_params"].(string), vars)
		if err != nil || got != tt.want {
			t.Errorf("first_controller=%v: command %q, %v; want %q", tt.first, got, err, tt.want)
		}
		if timeout, _ := jinja.RenderString(task.Timeout, vars); timeout != "15m0s" {
			t.Errorf("timeout = %q", timeout)
		}
	}
	verify := shippedTask(t, "control-plane", "Verify", map[string]any{})
	that := verify.Args["that"].([]any)[0].(string)
	for version, want := range map[string]bool{"v1.30.2": true, "v1.29.9": false} {
		vars := map[string]any{"to_version": "v1.30.2", "kcfg_after": map[string]any{"control_plane_version": version}}
		if ok, err := jinja.Cond(that, vars); err != nil || ok != want {
			t.Errorf("verify with manifests at %s = %v, %v; want %v", version, ok, err, want)
		}
	}
}

func TestKubeletDefaultsAndOverrides(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{"to_version": "v1.30.2", "group_names": []any{"all", "workers"}, "inventory_hostname": "worker-0",
			"groups": map[string]any{"controllers": []any{"controller-0", "controller-1"}, "workers": []any{"worker-0"}}}
	}
	vars := base()
	install := shippedTask(t, "kubelet", "Install the kubelet", vars)
	if got, err := jinja.RenderString(install.Args["_raw_params"].(string), vars); err != nil || got != vars["k8s_pkg_install"] {
		t.Errorf("default install = %q, %v; want the play's k8s_pkg_install", got, err)
	}
	vars = base()
	vars["kupgrade_kubelet_install"] = "dnf install -y kubelet-{{ to_version[1:] }}"
	install = shippedTask(t, "kubelet", "Install the kubelet", vars)
	if got, err := jinja.RenderString(install.Args["_raw_params"].(string), vars); err != nil || got != "dnf install -y kubelet-1.30.2" {
		t.Errorf("inventory install = %q, %v", got, err)
	}
	for _, tt := range []struct {
		groups      []any
		personality any
		runs        bool
	}{
		{[]any{"all", "workers"}, nil, true},
		{[]any{"all", "controllers"}, nil, false},
		{[]any{"all", "kube_control_plane"}, nil, false},
		{[]any{"all", "controllers"}, "worker", true},
	} {
		vars := base()
		vars["group_names"] = tt.groups
		if tt.personality != nil {
			vars["kupgrade_personality"] = tt.personality
		}
		node := shippedTask(t, "kubelet", "kubeadm upgrade node", vars)
		if ok, err := jinja.Cond(node.When[0], vars); err != nil || ok != tt.runs {
			t.Errorf("groups %v personality %v: kubeadm upgrade node runs = %v, %v; want %v", tt.groups, tt.personality, ok, err, tt.runs)
		}
	}
	verify := shippedTask(t, "kubelet", "Verify the kubelet", base())
	that := verify.Args["that"].([]any)[0].(string)
	for out, want := range map[string]bool{"Kubernetes v1.30.2\n": true, "Kubernetes v1.30.20\n": false} {
		vars := base()
		vars["kubelet_version"] = map[string]any{"stdout": out}
		if ok, err := jinja.Cond(that, vars); err != nil || ok != want {
			t.Errorf("kubelet --version %q: verify = %v, %v; want %v", out, ok, err, want)
		}
	}
}

// TestAbortRestoresFromThisUpgradesBackups runs abort.yml's script against a scratch copy of
// /etc/kubernetes and /var/lib/kubelet: it restores each file from the folders it is given (this
// upgrade's), a copy at the recorded tag or checksum only, never from an older upgrade's folder
// however new; where one is missing it changes nothing at all; a second run changes nothing.
func TestAbortRestoresFromThisUpgradesBackups(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	root := t.TempDir()
	write := func(rel, content string) string { return writeUnder(t, root, rel, content) }
	read := func(rel string) string { b, _ := os.ReadFile(filepath.Join(root, rel)); return string(b) }
	task := shippedTask(t, "abort", "Restore the manifests", map[string]any{})
	script := strings.ReplaceAll(task.Args["_raw_params"].(string), "/etc/kubernetes", root)
	script = strings.ReplaceAll(script, "/var/lib/kubelet", root+"/kubelet")
	oldCfg := "kind: KubeletConfiguration # v1.29"
	sum := sha256.Sum256([]byte(oldCfg))
	run := func(tags, dirs, kubeletDirs string) (string, error) {
		cmd := exec.CommandContext(t.Context(), "sh", "-c", script)
		cmd.Env = append(os.Environ(), "KUPGRADE_TAGS="+tags, "KUPGRADE_DIRS="+dirs,
			"KUPGRADE_CONFIG_SHA="+hex.EncodeToString(sum[:]), "KUPGRADE_KUBELET_DIRS="+kubeletDirs)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	changed := func(stdout string) bool {
		ok, err := jinja.Cond(task.ChangedWhen[0], map[string]any{"restore": map[string]any{"stdout": stdout}})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	img := func(v string) string { return "    image: registry.k8s.io/kube-apiserver:" + v + "\n" }
	write("manifests/kube-apiserver.yaml", img("v1.30.2"))
	write("kubelet/config.yaml", "kind: KubeletConfiguration # v1.30")
	write("tmp/kubeadm-backup-manifests-2099-01-01-00-00-00/kube-apiserver.yaml", img("v1.28.0")) // an older upgrade's
	first := write("tmp/kubeadm-backup-manifests-2024-01-02-10-00-00/kube-apiserver.yaml", img("v1.29.1"))
	redo := filepath.Join(root, "tmp/kubeadm-backup-manifests-2024-01-02-11-00-00")
	if err := os.MkdirAll(redo, 0o755); err != nil {
		t.Fatal(err)
	}
	kcfg := write("tmp/kubeadm-kubelet-config123/config.yaml", oldCfg)
	dirs := first + "\n" + redo
	if out, err := run("kube-apiserver v1.29.9", dirs, kcfg); err == nil || !strings.Contains(out, "kube-apiserver.yaml at v1.29.9") {
		t.Errorf("no copy at the tag: %v, want a failure naming it:\n%s", err, out)
	}
	if got := read("manifests/kube-apiserver.yaml"); got != img("v1.30.2") || read("kubelet/config.yaml") == oldCfg {
		t.Errorf("a failed restore changed files: manifest %q", got)
	}
	out, err := run("kube-apiserver v1.29.1", dirs, kcfg)
	if err != nil || !changed(out) {
		t.Fatalf("restore: %v, changed=%v:\n%s", err, changed(out), out)
	}
	if got := read("manifests/kube-apiserver.yaml"); got != img("v1.29.1") {
		t.Errorf("manifest after abort = %q, want this upgrade's first backup (v1.29.1)", got)
	}
	if got := read("kubelet/config.yaml"); got != oldCfg {
		t.Errorf("config.yaml after abort = %q, want the copy with the recorded checksum", got)
	}
	if out, err := run("kube-apiserver v1.29.1", dirs, kcfg); err != nil || changed(out) {
		t.Errorf("second run: %v, changed=%v:\n%s", err, changed(out), out)
	}
	if left, _ := filepath.Glob(filepath.Join(root, "manifests", ".*")); len(left) != 0 {
		t.Errorf("staging files left behind: %v", left)
	}
}

// writeUnder writes content to root/rel, making its folders, and returns rel's folder.
func writeUnder(t *testing.T, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(p)
}
