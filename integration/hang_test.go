//go:build integration

package integration_test

import (
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// waitForHang waits until the one-shot hang fault on n has fired (kubeadm removed it) and
// kubeadm runs: kupgrade is then in the middle of kubeadm upgrade node.
func waitForHang(t *testing.T, n *lab.Node, out interface{ String() string }) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		_, noFault := n.Exec(t.Context(), "test", "!", "-e", lab.FaultFile)
		_, running := n.Exec(t.Context(), "pgrep", "-f", "kubeadm upgrade")
		if noFault == nil && running == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubeadm never reached the hang on %s; kupgrade said:\n%s", n.Name, out)
		}
	}
}
