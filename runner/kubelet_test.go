package runner_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// node lays out what kubeadm leaves on a host's disk below root.
type node struct{ root string }

func newNode(t *testing.T) node {
	t.Helper()
	n := node{t.TempDir()}
	for _, d := range []string{"var/lib/kubelet", "etc/kubernetes/manifests", "etc/kubernetes/tmp"} {
		if err := os.MkdirAll(filepath.Join(n.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

func (n node) write(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(n.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (n node) manifests(t *testing.T, tag string) {
	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		n.write(t, "etc/kubernetes/manifests/"+c+".yaml",
			"apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: "+c+"\n    image: registry.k8s.io/"+c+":"+tag+"\n")
	}
}

func TestProbeOverLocalConn(t *testing.T) {
	n := newNode(t)
	n.write(t, "var/lib/kubelet/config.yaml", "kind: KubeletConfiguration\n")
	n.manifests(t, "v1.29.6")
	n.write(t, "etc/kubernetes/manifests/etcd.yaml", "    image: registry.k8s.io/etcd:3.5.12-0\n")
	n.write(t, "etc/kubernetes/tmp/kubeadm-kubelet-config123/config.yaml", "old\n")
	os.MkdirAll(filepath.Join(n.root, "etc/kubernetes/tmp/kubeadm-backup-manifests-2024-01-01-00-00-00"), 0o755)
	os.MkdirAll(filepath.Join(n.root, "etc/kubernetes/tmp/kubeadm-upgraded-manifests999"), 0o755)

	s, err := runner.Prober{Root: n.root}.Probe(t.Context(), &runnertest.LocalConn{}, false)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("kind: KubeletConfiguration\n"))
	if !s.ConfigExists || s.ConfigSHA256 != hex.EncodeToString(sum[:]) || s.ConfigMtime.IsZero() {
		t.Errorf("config: %v %s %v", s.ConfigExists, s.ConfigSHA256, s.ConfigMtime)
	}
	if s.ControlPlaneVersion() != "v1.29.6" || s.Manifests["etcd"] != "3.5.12-0" {
		t.Errorf("manifests = %v", s.Manifests)
	}
	if len(s.BackupDirs) != 1 || s.BackupDirs[0] != "/etc/kubernetes/tmp/kubeadm-backup-manifests-2024-01-01-00-00-00" {
		t.Errorf("backup dirs = %v (paths must be the host's, without the root)", s.BackupDirs)
	}
	if len(s.UpgradedManifestsDirs) != 1 || len(s.KubeletConfigBackups) != 1 || !s.KubeletConfigBackups[0].HasConfig {
		t.Errorf("upgraded %v kubelet backups %+v", s.UpgradedManifestsDirs, s.KubeletConfigBackups)
	}

	os.Remove(filepath.Join(n.root, "var/lib/kubelet/config.yaml"))
	s, err = runner.Prober{Root: n.root}.Probe(t.Context(), &runnertest.LocalConn{}, false)
	if err != nil || s.ConfigExists {
		t.Errorf("missing config: %v, exists %v", err, s.ConfigExists)
	}
}

// TestKubeletConfigModule runs the seed case: kubeadm rewrites config.yaml after backing it up,
// then fails; the module compares with the snapshot taken before.
func TestKubeletConfigModule(t *testing.T) {
	n := newNode(t)
	n.write(t, "var/lib/kubelet/config.yaml", "old config\n")
	n.manifests(t, "v1.29.6")
	i, _ := setup(t, "all:\n  hosts:\n    h1:\n", "- hosts: all\n  tasks: []\n")
	root := n.root
	kubeadm := "cp " + root + "/var/lib/kubelet/config.yaml " + root + "/etc/kubernetes/tmp/kubeadm-kubelet-config1/config.yaml; " +
		"for f in " + root + "/etc/kubernetes/manifests/kube-*.yaml; do sed -i s/v1.29.6/v1.30.2/ $f; done; " +
		"echo new > " + root + "/var/lib/kubelet/config.yaml; echo 'addon phase failed' >&2; exit 1"
	os.MkdirAll(filepath.Join(root, "etc/kubernetes/tmp/kubeadm-kubelet-config1"), 0o755)
	pb := &playbooks.Playbook{File: filepath.Join(t.TempDir(), "p.yml"), Plays: []*playbooks.Play{{
		Name: "seed", Hosts: "all",
		Tasks: []*playbooks.Task{
			{Name: "before", Module: "kubelet_config", Args: map[string]any{"root": root}, Register: "kcfg_before"},
			{Name: "kubeadm", Module: "shell", Args: map[string]any{"_raw_params": kubeadm}, IgnoreErrors: true},
			{Name: "after", Module: "kubelet_config", Register: "kcfg_after",
				Args: map[string]any{"root": root, "compare_to": "{{ kcfg_before }}", "target": "v1.30.2"}},
		},
	}}}
	r := runner.New(&runnertest.LocalDialer{}, runner.Options{})
	defer r.Close()
	recap, err := r.Play(t.Context(), pb, i, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := recap.Registered["h1"]["kcfg_before"].(map[string]any)
	for _, k := range []string{"config_exists", "config_sha256", "config_mtime", "manifests", "control_plane_version",
		"upgraded_manifests_dirs", "backup_dirs", "kubelet_config_backups", "changed"} {
		if _, ok := before[k]; !ok {
			t.Errorf("kubelet_config result lacks %s", k)
		}
	}
	if before["control_plane_version"] != "v1.29.6" {
		t.Errorf("before: control_plane_version = %v", before["control_plane_version"])
	}
	f := recap.Registered["h1"]["kcfg_after"].(map[string]any)["finding"].(map[string]any)
	if f["class"] != runner.FindingConfigRewritten || !strings.Contains(f["summary"].(string), "kubeadm-kubelet-config1") {
		t.Errorf("finding = %v", f)
	}
}

// TestCopyUnderBecomeInstalls checks the commands: compare first, upload to a temporary file,
// then one `sudo install` with mode and owner.
func TestCopyUnderBecomeInstalls(t *testing.T) {
	d := &runnertest.FakeDialer{}
	_, err, _ := run(t, d, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  become: true
  tasks:
    - copy:
        content: "root only\n"
        dest: /etc/kubernetes/admin.conf
        mode: "0600"
        owner: root
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	calls := d.Conns("h1")[0].Calls()
	if len(calls) != 3 {
		t.Fatalf("calls = %q, want stat, upload, install", calls)
	}
	if !strings.HasPrefix(calls[0], "exec sudo -n -u root -- sh -c ") || !strings.Contains(calls[0], "sha256sum") {
		t.Errorf("first call = %s", calls[0])
	}
	if !strings.HasPrefix(calls[1], "upload /tmp/.kupgrade-") {
		t.Errorf("second call = %s", calls[1])
	}
	tmpName := strings.TrimPrefix(calls[1], "upload ")
	if want := "install -m 0600 -o root " + tmpName + " /etc/kubernetes/admin.conf"; !strings.HasPrefix(calls[2], "exec sudo -n -u root -- sh -c ") ||
		!strings.Contains(calls[2], want) {
		t.Errorf("third call = %s\nwant %s", calls[2], want)
	}
	if b, _ := d.Conns("h1")[0].File(tmpName); string(b) != "root only\n" {
		t.Errorf("uploaded %q", b)
	}
}
