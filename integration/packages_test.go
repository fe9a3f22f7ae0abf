//go:build integration

package integration_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestPackagesCheck: `upgrade plan` and `upgrade start` ask every host's package repositories
// before anything changes. v1.29.95, which the lab's v1.29 repository does not offer (it holds
// patches 0-89), is refused naming each host, the package and the repository asked; so is a
// hop whose release is missing (v1.30.95 listed in kupgrade_versions) before the first step.
// Nothing is recorded and no host is touched: every node still has its packages at v1.29.4,
// held, its source naming v1.29 and its lists as they were. --skip-check packages goes on and
// is recorded.
func TestPackagesCheck(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1})
	lists := nodeLists(t, u.lab)
	out := u.k.wantExit(t, 3, "upgrade", "plan", "v1.29.95")
	requireRefusedNaming(t, u.lab, out, "kubeadm v1.29.95", "v1.29/deb")
	out = u.k.wantExit(t, 3, "upgrade", "start", "v1.29.95")
	requireRefusedNaming(t, u.lab, out, "kubeadm v1.29.95", "v1.29/deb")
	if v := u.k.show(t); v.State != "" {
		t.Fatalf("a refused start recorded an upgrade: %+v", v)
	}

	offerVersions(t, u.lab, "v1.30.95", "v1.31.2")
	out = u.k.wantExit(t, 3, "upgrade", "start", "v1.31.2")
	requireRefusedNaming(t, u.lab, out, "kubeadm v1.30.95", "v1.30/deb")
	if strings.Contains(out, "v1.31.2 is not offered") {
		t.Errorf("the last hop, which the v1.31 repository offers, is refused too:\n%s", out)
	}
	if v := u.k.show(t); v.State != "" {
		t.Fatalf("a refused start recorded an upgrade: %+v", v)
	}
	requirePackages(t, u.lab, "1.29.4-1.1", "v1.29")
	if got := nodeLists(t, u.lab); !slices.Equal(got, lists) {
		t.Errorf("the check changed the nodes' apt lists:\n got %q\nwant %q", got, lists)
	}

	u.k.wantExit(t, 0, "upgrade", "start", "v1.31.2", "--skip-check", "packages")
	if out := u.k.wantExit(t, 0, "upgrade", "history", "--wide"); !strings.Contains(out, "health checks skipped by --skip-check: packages") {
		t.Errorf("history does not record the skipped check:\n%s", out)
	}
}

// requireRefusedNaming: out refuses the packages check, naming what on every node and the
// node's repository repo (the minor and kind: v1.30/deb, v1.30/rpm).
func requireRefusedNaming(t *testing.T, l *lab.Lab, out, what, repo string) {
	t.Helper()
	if !strings.Contains(out, "fail  packages:") || !strings.Contains(out, "--skip-check packages") {
		t.Errorf("not refused by the packages check:\n%s", out)
	}
	for _, n := range l.Nodes() {
		want := n.Name + ": " + what + " is not offered by the repository file:"
		i := strings.Index(out, want)
		if i < 0 || !strings.HasPrefix(strings.TrimLeft(out[i+len(want):], "/"), "var/lib/kupgrade-lab/shared/pkgs/core:/stable:/"+repo+"/") {
			t.Errorf("the refusal does not say %q followed by the %s repository:\n%s", want, repo, out)
		}
	}
}

// nodeLists are the apt list files of every node.
func nodeLists(t *testing.T, l *lab.Lab) []string {
	t.Helper()
	var out []string
	for _, n := range l.Nodes() {
		ls, err := n.Exec(t.Context(), "sh", "-c", "ls /var/lib/kupgrade-lab/apt/lists")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n.Name+": "+strings.TrimSpace(ls))
	}
	return out
}
