//go:build integration

package integration_test

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestPackagesDnf: the dnf path on RPM hosts (ansible_pkg_mgr: dnf; the install guide's
// /etc/yum.repos.d/kubernetes.repo naming the minor's rpm repository, exclude= holding kubeadm,
// kubelet and kubectl). `upgrade start` refuses v1.29.95, which the v1.29 rpm repository does
// not offer, naming each host and that repository. An install that dnf fails (its download) ends
// the first controller's step in its failed twin with dnf's message and the versions installed
// and held after it; the retry completes: every node has the three packages at v1.30.2 from the
// v1.30 repository, its .repo file names v1.30 (baseurl and gpgkey) and keeps its exclude= line.
func TestPackagesDnf(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1, PackageManager: lab.DnfManager})
	out := u.k.wantExit(t, 3, "upgrade", "start", "v1.29.95")
	requireRefusedNaming(t, u.lab, out, "kubeadm v1.29.95", "v1.29/rpm")
	if v := u.k.show(t); v.State != "" {
		t.Fatalf("a refused start recorded an upgrade: %+v", v)
	}
	requirePackages(t, u.lab, "1.29.4-150500.1.1", "v1.29")

	injectFault(t, u.lab.Node("controller-0"), lab.Fault{Phase: "dnf-download", Before: true, Action: lab.Exit, Status: 1, Once: true})
	u.k.wantExit(t, 0, "upgrade", "start", "v1.30.2")
	out = u.k.wantExit(t, 1, "upgrade", "run")
	if st := u.k.show(t).State; st != "upgrading-first-master-failed" {
		t.Errorf("state %s after dnf failed, want upgrading-first-master-failed:\n%s", st, out)
	}
	for _, s := range []string{"Error: Error downloading packages:", "kupgrade: installed now: kubeadm 1.29.4-150500.1.1",
		"kupgrade: dnf could not install kubeadm-1.30.2 from the repository [kubernetes] moved to v1.30 (core:/stable:/v1.30/rpm/); " + lab.RPMRepoFile + " is left as it was",
		"Installed now: kubeadm 1.29.4-150500.1.1 (held), kubelet 1.29.4-150500.1.1 (held), kubectl 1.29.4-150500.1.1 (held)."} {
		if !strings.Contains(out, s) {
			t.Errorf("the failure does not say %q:\n%s", s, out)
		}
	}

	out = u.k.wantExit(t, 0, "upgrade", "run")
	requireVersions(t, u.lab, "v1.30.2")
	requirePackages(t, u.lab, "1.30.2-150500.1.1", "v1.30")
	for _, n := range u.lab.Nodes() {
		repo, err := n.Exec(t.Context(), "cat", lab.RPMRepoFile)
		if err != nil || !strings.Contains(repo, "\nexclude=kubelet kubeadm kubectl cri-tools kubernetes-cni\n") {
			t.Errorf("%s: the exclude= line (the hold) is gone from %s (%v):\n%s", n.Name, lab.RPMRepoFile, err, repo)
		}
	}
	// Each install is reported changed (dnf says Upgraded:, not Installed:).
	runLog := readRunLog(t, out)
	want := []string{"| kupgrade: " + lab.RPMRepoFile + " now names v1.30", "| Upgraded:\n  |   kubectl-1.30.2-150500.1.1.x86_64\n  |   kubelet-1.30.2-150500.1.1.x86_64\n"}
	for _, n := range u.lab.Nodes() {
		want = append(want, "task_changed ["+n.Name+"] [Install the kubelet and kubectl v1.30.2]")
	}
	for _, s := range want {
		if !strings.Contains(runLog, s) {
			t.Errorf("the run log lacks %q:\n%s", s, runLog)
		}
	}
}
