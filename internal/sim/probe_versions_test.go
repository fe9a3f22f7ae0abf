package sim

import (
	"testing"

	"github.com/kupgrade/kupgrade/kubeadm"
)

// kubeadm's probe reads the simulated kubelet's and kubeadm's versions in its one command, as it
// reads the lab's shell binaries: the kubelet at the fleet's From, kubeadm at its To.
func TestProbeReadsTheSimulatedVersions(t *testing.T) {
	f := newTestFleet(t)
	script, _ := kubeadm.Prober{Versions: true}.Command()
	rc, out, errs := run(t, f.Clusters[0].Hosts[0], script)
	s, err := kubeadm.ParseReport([]byte(out))
	if rc != 0 || err != nil {
		t.Fatalf("probe: rc %d, %v, %s", rc, err, errs)
	}
	if in := s.Installed; in.Kubelet != "v1.29.4" || in.Kubeadm != "v1.30.1" || in.KubeletErr() != nil {
		t.Errorf("installed = %+v, want kubelet v1.29.4 and kubeadm v1.30.1", in)
	}
}
