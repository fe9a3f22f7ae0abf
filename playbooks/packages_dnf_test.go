package playbooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const k8sRepo = "[kubernetes]\nname=Kubernetes\nbaseurl=file:///repo/core:/stable:/v1.30/rpm/\nenabled=1\nexclude=kubelet kubeadm kubectl\n"

// runDnfInstall runs k8s_pkg_install with ansible_pkg_mgr dnf and a dnf stand-in that copies
// the kubernetes.repo its --setopt=reposdir names to seen and fails when fail is true; it returns
// the output, the error, what dnf was given to read and the repository file afterwards.
func runDnfInstall(t *testing.T, fail bool) (string, error, string, string) {
	t.Helper()
	dir := t.TempDir()
	dnf := `#!/bin/sh
for a in "$@"; do case $a in --setopt=reposdir=*) cat "${a#--setopt=reposdir=}/kubernetes.repo" > "$D/seen" ;; esac; done
[ -f "$D/fail" ] && { echo "Error: Unable to find a match: kubeadm-1.31.99" >&2; exit 1; }
exit 0
`
	for name, body := range map[string]string{"dnf": dnf, "rpm": "exit 0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nD="+dir+"\n"+strings.TrimPrefix(body, "#!/bin/sh\n")), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if fail {
		if err := os.WriteFile(filepath.Join(dir, "fail"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]any{"to_version": "v1.31.99", "group_names": []any{"workers"}, "inventory_hostname": "worker-0",
		"groups": map[string]any{"controllers": []any{"controller-0"}}}
	renderPlayVars(t, mustEmbedded(t, "kubelet").Plays[0].Vars, vars)
	repos := filepath.Join(dir, "yum.repos.d")
	if err := os.MkdirAll(repos, 0o755); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(repos, "kubernetes.repo")
	if err := os.WriteFile(repo, []byte(k8sRepo), 0o644); err != nil {
		t.Fatal(err)
	}
	script := strings.ReplaceAll(vars["k8s_pkg_install"].(string), "/etc/yum.repos.d", repos)
	cmd := exec.CommandContext(t.Context(), "sh", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "KUPGRADE_PACKAGES=kubeadm",
		"KUPGRADE_VERSION=1.31.99", "KUPGRADE_PKG_MGR=dnf", "KUPGRADE_PKG_STATE="+filepath.Join(dir, "state"))
	out, err := cmd.CombinedOutput()
	seen, _ := os.ReadFile(filepath.Join(dir, "seen"))
	after, _ := os.ReadFile(repo)
	return string(out), err, string(seen), string(after)
}

// With dnf too, the repository file moves to the new minor only once dnf, reading a moved copy,
// installed the version: a failed install leaves it as it was, naming it; a successful one
// leaves it on the new minor, its exclude= (the hold) kept.
func TestDnfInstallMovesTheRepositoryOnlyOnceInstalled(t *testing.T) {
	moved := strings.Replace(k8sRepo, "v1.30", "v1.31", 1)
	out, err, seen, after := runDnfInstall(t, true)
	if err == nil || after != k8sRepo || seen != moved || !strings.Contains(out, "is left as it was") {
		t.Errorf("failed install: %v, dnf read\n%s\nthe file is now\n%s\nwant dnf to read the moved copy and the file as it was:\n%s", err, seen, after, out)
	}
	out, err, _, after = runDnfInstall(t, false)
	if err != nil || after != moved {
		t.Errorf("install: %v, the file is now\n%s\nwant\n%s\n%s", err, after, moved, out)
	}
}
