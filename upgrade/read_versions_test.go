package upgrade_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/upgrade"
)

// probeOnly answers every host with one FakeConn: the probe's report, as the lab's binaries
// make it print.
type probeOnly struct{ conn *runnertest.FakeConn }

func (p probeOnly) Play(context.Context, *playbooks.Playbook, *inventory.Inventory, runner.PlayOptions) (*runner.Recap, error) {
	panic("no play")
}
func (p probeOnly) Conn(context.Context, *inventory.Host) (runner.Conn, error) { return p.conn, nil }

// `upgrade versions`, `upgrade start` and the kubelet step read a host's versions in one command,
// kubeadm's probe: the control plane, the kubelet and kubeadm.
func TestReadVersionsIsOneProbe(t *testing.T) {
	c := &runnertest.FakeConn{Results: map[string]runnertest.Result{"sha256sum": {Stdout: "config\tmissing\n" +
		"manifest\tkube-apiserver\t    image: registry.k8s.io/kube-apiserver:v1.30.2\n" +
		"kubelet\t0\tKubernetes v1.30.2\nkubeadm\t0\tv1.31.0\nend\n"}}}
	h := &inventory.Host{Name: "controller-0", Vars: map[string]any{"kupgrade_personality": "controller"}}
	w := &upgrade.Workflow{Runner: probeOnly{c}}
	vs, err := w.ReadVersions(t.Context(), []*inventory.Host{h}, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := vs["controller-0"], (upgrade.Versions{ControlPlane: "v1.30.2", Kubelet: "v1.30.2", Kubeadm: "v1.31.0"}); got != want {
		t.Errorf("versions = %+v, want %+v", got, want)
	}
	if calls := c.Calls(); len(calls) != 1 || !strings.Contains(calls[0], "kubelet --version") || !strings.Contains(calls[0], "kubeadm version -o short") {
		t.Errorf("calls = %q, want one probe that reads both binaries", calls)
	}
}

// A host whose kubelet prints no version is an error that quotes it.
func TestReadVersionsNoKubelet(t *testing.T) {
	c := &runnertest.FakeConn{Results: map[string]runnertest.Result{"sha256sum": {Stdout: "config\tmissing\n" +
		"kubelet\t127\tsh: 1: kubelet: not found\nkubeadm\t127\t\nend\n"}}}
	w := &upgrade.Workflow{Runner: probeOnly{c}}
	_, err := w.ReadVersions(t.Context(), []*inventory.Host{{Name: "worker-0"}}, true)
	if err == nil || !strings.Contains(err.Error(), "kubelet: not found") || !strings.Contains(err.Error(), "worker-0") {
		t.Errorf("err = %v, want the host and what it printed", err)
	}
}
