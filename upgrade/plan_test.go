package upgrade_test

import (
	"errors"
	"testing"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

func hostsAt(cp0, cp1, target1 string, kubelets ...state.HostStatus) []state.Host {
	hs := []state.Host{
		{Hostname: "controller-0", Personality: state.Controller, TargetVersion: cp0, ControlPlaneVersion: cp0},
		{Hostname: "controller-1", Personality: state.Controller, TargetVersion: target1, ControlPlaneVersion: cp1},
		{Hostname: "worker-0", Personality: state.Worker},
		{Hostname: "worker-1", Personality: state.Worker},
	}
	for i, s := range kubelets {
		hs[i].Status = s
	}
	return hs
}

// Next decides what `upgrade run` does from any state: a failed state resumes at its own step,
// on the host that was tried; controllers' kubelets one at a time, then workers in batches.
func TestPlanNext(t *testing.T) {
	const to = "v1.30.1"
	ok := state.UpgradedKubelet
	tests := []struct {
		name  string
		plan  upgrade.Plan
		state state.State
		hosts []state.Host
		want  string // "" when done
		err   error
	}{
		{"start", upgrade.Plan{}, state.UpgradeStarted, hostsAt("", "", ""), "download-images", nil},
		{"images failed retries images", upgrade.Plan{}, state.DownloadingImagesFailed, hostsAt("", "", ""), "download-images", nil},
		{"no hook: networking next", upgrade.Plan{}, state.DownloadedImages, hostsAt("", "", ""), "networking", nil},
		{"hook: pre-app-update next", upgrade.Plan{PreAppUpdate: true}, state.DownloadedImages, hostsAt("", "", ""), "pre-app-update", nil},
		{"storage configured", upgrade.Plan{Storage: true}, state.UpgradedNetworking, hostsAt("", "", ""), "storage", nil},
		{"first master", upgrade.Plan{}, state.UpgradedNetworking, hostsAt("", "", ""), "first-master [controller-0]", nil},
		{"second master", upgrade.Plan{}, state.UpgradedFirstMaster, hostsAt(to, "", ""), "second-master [controller-1]", nil},
		{"retry on the host that was tried", upgrade.Plan{}, state.UpgradingSecondMasterFailed, hostsAt(to, "v1.29.4", to), "second-master [controller-1]", nil},
		{"retry after a late failure: its manifests are at the target too", upgrade.Plan{}, state.UpgradingSecondMasterFailed, hostsAt(to, to, to), "second-master [controller-1]", nil},
		{"first-master retry on the first controller", upgrade.Plan{}, state.UpgradingFirstMasterFailed, hostsAt(to, "", ""), "first-master [controller-0]", nil},
		{"kubelets: controllers first", upgrade.Plan{}, state.UpgradedSecondMaster, hostsAt(to, to, to), "kubelets [controller-0]", nil},
		{"kubelets: workers in batches", upgrade.Plan{WorkerBatch: 2}, state.UpgradingKubelets, hostsAt(to, to, to, ok, ok), "kubelets [worker-0 worker-1]", nil},
		{"every kubelet done: complete", upgrade.Plan{}, state.UpgradingKubelets, hostsAt(to, to, to, ok, ok, ok, ok), "complete", nil},
		{"cordoned: uncordon before complete", upgrade.Plan{Uncordon: true}, state.UpgradingKubelets, hostsAt(to, to, to, ok, ok, ok, ok), "uncordon", nil},
		{"uncordoned: complete", upgrade.Plan{Uncordon: true}, state.UncordonComplete, hostsAt(to, to, to, ok, ok, ok, ok), "complete", nil},
		{"complete, no hook: done", upgrade.Plan{}, state.UpgradeComplete, nil, "", nil},
		{"in flight is refused", upgrade.Plan{}, state.UpgradingSecondMaster, nil, "", state.ErrRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			act, done, err := tt.plan.Next(state.Upgrade{State: tt.state, ToVersion: to}, tt.hosts)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := act.String()
			if done {
				got = ""
			}
			if got != tt.want {
				t.Errorf("Next = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRetryCommand(t *testing.T) {
	tests := []struct {
		s    state.State
		host string
		want string
	}{
		{state.UpgradingSecondMasterFailed, "controller-1", "kupgrade host upgrade controller-1 control-plane"},
		{state.DownloadingImagesFailed, "", "kupgrade upgrade download-images"},
		{state.UpgradingNetworkingFailed, "", "kupgrade upgrade networking"},
		{state.UpgradingKubelets, "worker-0", "kupgrade host upgrade worker-0 kubelet"},
		{state.CordonFailed, "controller-0", "kupgrade host cordon controller-0"},
		{state.UpgradeAbortingFailed, "", "kupgrade upgrade abort"},
		{state.UpgradedFirstMaster, "", ""},
	}
	for _, tt := range tests {
		if got := state.RetryCommand(tt.s, tt.host); got != tt.want {
			t.Errorf("RetryCommand(%s, %q) = %q, want %q", tt.s, tt.host, got, tt.want)
		}
	}
}
