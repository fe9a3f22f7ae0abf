//go:build integration

package integration_test

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestRealAbortRestoresOnlyWhatItChanged is issue 24's two abort cases on a real kubeadm:
//   - an older upgrade's backup folder on the controller this upgrade never touched: abort
//     restores the first controller and leaves the second at its version;
//   - the seed's late failure on the second controller (after kubeadm rewrote its kubelet
//     config) and its retry, whose redo leaves a new backup folder: abort restores that
//     controller from the folder its first run made, config.yaml included.
//
// Each abort ends upgrade-aborted with every controller's manifests and kubelet at the starting
// version, every control-plane pod Running at it and /readyz ok.
func TestRealAbortRestoresOnlyWhatItChanged(t *testing.T) {
	u := startRealLab(t)
	from, to := lab.RealFromVersion, lab.RealToVersion
	c1 := u.lab.Node("controller-1")
	run(t, c1, `mkdir -p `+oldBackup+` && for c in kube-apiserver kube-controller-manager kube-scheduler; do
		sed 's/`+from+`/v1.29.15/' /etc/kubernetes/manifests/$c.yaml > `+oldBackup+`/$c.yaml; done && touch -d 2099-01-01 `+oldBackup)
	configBefore := run(t, c1, "sha256sum /var/lib/kubelet/config.yaml")
	aborted := func(t *testing.T) {
		t.Helper()
		u.k.wantExit(t, 0, "upgrade", "abort", "-y")
		if got := u.k.show(t).State; got != "upgrade-aborted" {
			t.Fatalf("state %s after the abort, want upgrade-aborted", got)
		}
		requireVersions(t, u.lab, from)
		requireRealCluster(t, u.lab, from)
	}
	ok := t.Run("untouched controller keeps its version", func(t *testing.T) {
		u.begin(t, to, "upgraded-first-master")
		aborted(t)
		if got := run(t, c1, "ls "+oldBackup); !strings.Contains(got, "kube-apiserver.yaml") {
			t.Errorf("the older upgrade's folder on controller-1 changed: %q", got)
		}
	})
	_ = ok && t.Run("retried controller restored", func(t *testing.T) {
		u.k.wantExit(t, 0, "upgrade", "delete")
		u.begin(t, to, "upgraded-first-master")
		u.failThenRetry(t, failure{name: "seed", host: "controller-1", class: "kubelet-config-rewritten",
			fault: lab.Fault{Phase: "kubelet-config", Action: lab.Exit, Status: 1, Once: true}},
			"upgrading-second-master", "upgraded-second-master")
		aborted(t)
		if got := run(t, c1, "sha256sum /var/lib/kubelet/config.yaml"); got != configBefore {
			t.Errorf("controller-1's config.yaml after the abort: %s, want it as before the upgrade: %s", got, configBefore)
		}
	})
}
