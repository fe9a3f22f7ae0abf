//go:build integration

package integration_test

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// oldBackup is a kubeadm backup folder an earlier upgrade (from v1.28.9) left on a controller,
// dated in the future so that it is the newest by name and by modification time alike.
const oldBackup = "/etc/kubernetes/tmp/kubeadm-backup-manifests-2099-01-01-00-00-00"

// TestAbortRestoresWhatTheUpgradeChanged proves issue 24's cases in the simulated lab:
//   - an older upgrade's backup folder on a controller this upgrade never touched: abort leaves
//     that controller at its version, and restores the one it did touch;
//   - the seed's late failure and its retry (the redo leaves a new, empty backup folder): abort
//     restores the retried controller from the folder its first run made, config.yaml included;
//   - once a kubelet was upgraded, abort refuses, says why, and changes nothing.
//
// Each abort ends upgrade-aborted only after kupgrade read every controller back.
func TestAbortRestoresWhatTheUpgradeChanged(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1})
	c1 := u.lab.Node("controller-1")
	run(t, c1, `mkdir -p `+oldBackup+` && for c in kube-apiserver kube-controller-manager kube-scheduler; do
		sed 's/v1.29.4/v1.28.9/' /etc/kubernetes/manifests/$c.yaml > `+oldBackup+`/$c.yaml; done && touch -d 2099-01-01 `+oldBackup)
	configBefore := run(t, c1, "sha256sum /var/lib/kubelet/config.yaml")

	ok := t.Run("untouched controller keeps its version", func(t *testing.T) {
		u.begin(t, "v1.30.1", "upgraded-first-master")
		u.k.wantExit(t, 0, "upgrade", "abort", "-y")
		u.wantAborted(t)
		if got := run(t, c1, "ls "+oldBackup); !strings.Contains(got, "kube-apiserver.yaml") {
			t.Errorf("the older upgrade's folder on controller-1 changed: %q", got)
		}
	})
	ok = ok && t.Run("retried controller restored", func(t *testing.T) {
		u.k.wantExit(t, 0, "upgrade", "delete")
		u.begin(t, "v1.30.1", "upgraded-first-master")
		u.failThenRetry(t, failure{name: "seed", host: "controller-1", class: "kubelet-config-rewritten",
			fault: lab.Fault{Phase: "kubelet-config", Action: lab.Exit, Status: 1, Once: true}},
			"upgrading-second-master", "upgraded-second-master")
		u.k.wantExit(t, 0, "upgrade", "abort", "-y")
		u.wantAborted(t)
		if got := run(t, c1, "sha256sum /var/lib/kubelet/config.yaml"); got != configBefore {
			t.Errorf("controller-1's config.yaml after the abort: %s, want it as before the upgrade: %s", got, configBefore)
		}
	})
	_ = ok && t.Run("refused once a kubelet moved", func(t *testing.T) {
		u.k.wantExit(t, 0, "upgrade", "delete")
		u.begin(t, "v1.30.1", "upgraded-second-master")
		u.k.wantExit(t, 0, "host", "upgrade", "controller-0", "kubelet")
		out := u.k.wantExit(t, 3, "upgrade", "abort", "-y")
		if !strings.Contains(out, "controller-0 at v1.30.1") || !strings.Contains(out, "newer than their API server") {
			t.Errorf("the refusal does not name the kubelet and why:\n%s", out)
		}
		if got := u.k.show(t).State; got != "upgrading-kubelets" {
			t.Errorf("state %s after the refused abort, want upgrading-kubelets", got)
		}
		if got := run(t, u.lab.Node("controller-0"), "grep -h image: /etc/kubernetes/manifests/kube-apiserver.yaml"); !strings.Contains(got, "v1.30.1") {
			t.Errorf("the refused abort changed controller-0's manifests: %s", got)
		}
	})
}

// wantAborted checks the state, the nodes (every controller and kubelet at v1.29.4) and the
// host table kupgrade wrote back.
func (u *labUnderTest) wantAborted(t *testing.T) {
	t.Helper()
	if got := u.k.show(t).State; got != "upgrade-aborted" {
		t.Fatalf("state %s after the abort, want upgrade-aborted", got)
	}
	requireVersions(t, u.lab, lab.DefaultVersion)
	var n int
	if err := u.db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM host WHERE personality = 'controller'
		AND control_plane_version = ?`, lab.DefaultVersion).Scan(&n); err != nil || n != 2 {
		t.Errorf("host table: %d controllers recorded at %s after the abort (%v), want 2", n, lab.DefaultVersion, err)
	}
}

// run runs a shell command on n as root and returns its output.
func run(t *testing.T, n *lab.Node, script string) string {
	t.Helper()
	out, err := n.Exec(t.Context(), "sh", "-c", script)
	if err != nil {
		t.Fatalf("%s on %s: %v\n%s", script, n.Name, err, out)
	}
	return out
}
