package health

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// Run asks the first controller for the cluster and etcd, every controller for its
// certificates; a controller it cannot reach makes the checks it serves fail "cannot run".
func TestRun(t *testing.T) {
	var asked []string
	exec := func(_ context.Context, host, script string) (string, error) {
		switch script {
		case ClusterScript:
			asked = append(asked, host+" cluster")
			return clusterOutput(nil), nil
		case HostScript:
			asked = append(asked, host+" certs")
			if host == "controller-1" {
				return "", errors.New("ssh controller-1: connection refused")
			}
			return hostOutput(goodCerts), nil
		}
		asked = append(asked, host+" etcd")
		if !strings.Contains(script, "--endpoints='http://etcd:2379'") {
			t.Errorf("the etcd script does not ask the external endpoint:\n%s", script)
		}
		return healthyEtcd, nil
	}
	rs, err := Run(t.Context(), exec, []string{"controller-0", "controller-1"}, Options{To: v(t, "v1.31.1"), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"controller-0 cluster", "controller-0 etcd", "controller-0 certs", "controller-1 certs"}
	if !slices.Equal(asked, want) {
		t.Errorf("asked %q, want %q", asked, want)
	}
	if r := statuses(rs)[CheckCerts]; r.Status != Fail || r.Message != "cannot run: ssh controller-1: connection refused" {
		t.Errorf("certificates with controller-1 unreachable: %s", r)
	}
	down := func(context.Context, string, string) (string, error) { return "", errors.New("unreachable") }
	rs, err = Run(t.Context(), down, []string{"controller-0"}, Options{To: v(t, "v1.31.1")})
	// fail closed: every check that cannot run refuses; one skipped by name is skipped
	if err != nil || len(Failed(rs)) != len(Names) || rs[0].Status != Fail || rs[0].Message != "cannot run: controller-0: unreachable" {
		t.Errorf("controller unreachable: %v, %v", rs, err)
	}
}

// The task line of each script names the checks it serves.
func TestServes(t *testing.T) {
	for script, want := range map[string]string{
		ClusterScript: "nodes-ready, control-plane, kubelet-skew, removed-apis, drain", HostScript: CheckCerts,
		EtcdScript(EtcdConfig{}): CheckEtcd, OfferedScript("", []string{"kubeadm"}, nil): CheckPackages,
		OfferedScript("apt", []string{"kubeadm"}, nil): CheckPackages,
	} {
		if got := Serves(script); got != want {
			t.Errorf("Serves(%.40q) = %q, want %q", script, got, want)
		}
	}
}
