//go:build integration

package integration_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// offerVersions lists versions, in order, as the releases the lab's site offers
// (kupgrade_versions in the inventory's vars).
func offerVersions(t *testing.T, l *lab.Lab, versions ...string) {
	t.Helper()
	b, err := os.ReadFile(l.Inventory())
	if err != nil {
		t.Fatal(err)
	}
	inv := strings.Replace(string(b), "all:\n  vars:\n", "all:\n  vars:\n    kupgrade_versions: ["+strings.Join(versions, ", ")+"]\n", 1)
	if inv == string(b) {
		t.Fatalf("no all: vars: in the lab's inventory:\n%s", b)
	}
	if err := os.WriteFile(l.Inventory(), []byte(inv), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUpgradeHops: v1.29.4 to v1.31.2 in one upgrade, through v1.30.9, the newest v1.30 the
// inventory offers. The seed's late `kubeadm upgrade node` failure at the middle hop (v1.30.9,
// on controller-1) ends `upgrade run` in that hop's failed twin with the kubelet-config finding;
// the retry resumes that hop, and the run completes with every node at v1.31.2; history names
// each event's hop.
func TestUpgradeHops(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1})
	offerVersions(t, u.lab, "v1.30.0", "v1.30.9", "v1.31.0", "v1.31.2")
	u.k.wantExit(t, 0, "upgrade", "start", "v1.31.2")
	if v := u.k.show(t); !slices.Equal(v.Hops, []string{"v1.30.9", "v1.31.2"}) || v.Hop != 1 {
		t.Fatalf("hops %v, at hop %d; want [v1.30.9 v1.31.2] at hop 1", v.Hops, v.Hop)
	}
	injectFault(t, u.lab.Node("controller-1"), lab.Fault{Phase: "kubelet-config", Action: lab.Exit, Status: 1, Once: true})
	out := u.k.wantExit(t, 1, "upgrade", "run")
	if v := u.k.show(t); v.State != "upgrading-second-master-failed" || v.Hop != 1 {
		t.Fatalf("state %s at hop %d, want upgrading-second-master-failed at hop 1:\n%s", v.State, v.Hop, out)
	}
	if ev := newestFailure(t, u.db); ev.Class != "kubelet-config-rewritten" {
		t.Errorf("finding class %q, want kubelet-config-rewritten:\n%s", ev.Class, out)
	}
	u.k.wantExit(t, 0, "upgrade", "run")
	if v := u.k.show(t); v.State != "upgrade-complete" || v.Hop != 2 {
		t.Fatalf("state %s at hop %d, want upgrade-complete at hop 2", v.State, v.Hop)
	}
	requireVersions(t, u.lab, "v1.31.2")
	hist := u.k.wantExit(t, 0, "upgrade", "history", "--wide")
	for _, want := range []string{"hop 1 of 2 (v1.30.9): done second-master on controller-1", "hop 2 of 2 (v1.31.2): done second-master on controller-1"} {
		if !strings.Contains(hist, want) {
			t.Errorf("upgrade history does not say %q:\n%s", want, hist)
		}
	}
}

// TestUpgradeHopsImagesMissing: the registry serves no image of the last hop (v1.31.2). The
// first hop's download step asks for every hop's images, so `upgrade run` ends in
// downloading-images-failed at hop 1 naming the missing image, with every control plane still
// at v1.29.4; once the registry serves them, the same command completes at v1.31.2.
func TestUpgradeHopsImagesMissing(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1})
	offerVersions(t, u.lab, "v1.30.9", "v1.31.2")
	c0 := u.lab.Node("controller-0")
	if _, err := c0.Exec(t.Context(), "sh", "-c", "echo v1.31.2 > /var/lib/kupgrade-lab/shared/registry-missing"); err != nil {
		t.Fatal(err)
	}
	u.k.wantExit(t, 0, "upgrade", "start", "v1.31.2")
	out := u.k.wantExit(t, 1, "upgrade", "run")
	if v := u.k.show(t); v.State != "downloading-images-failed" || v.Hop != 1 {
		t.Fatalf("state %s at hop %d, want downloading-images-failed at hop 1:\n%s", v.State, v.Hop, out)
	}
	if !strings.Contains(out, "registry.k8s.io/kube-apiserver:v1.31.2: not found") {
		t.Errorf("the failure does not name the missing image:\n%s", out)
	}
	requireControlPlanes(t, u.lab, "v1.29.4")
	if _, err := c0.Exec(t.Context(), "rm", "/var/lib/kupgrade-lab/shared/registry-missing"); err != nil {
		t.Fatal(err)
	}
	u.k.wantExit(t, 0, "upgrade", "run")
	requireVersions(t, u.lab, "v1.31.2")
}

// requireControlPlanes fails t unless every controller's manifests name version.
func requireControlPlanes(t *testing.T, l *lab.Lab, version string) {
	t.Helper()
	for _, n := range l.Nodes() {
		if n.Role == "controller" {
			requireVersionsOn(t, n, version)
		}
	}
}
