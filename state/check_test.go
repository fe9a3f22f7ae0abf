package state

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)

func upgradeIn(s State) Upgrade {
	return Upgrade{Cluster: "default", FromVersion: "v1.29.4", ToVersion: "v1.30.2", State: s}
}

// cluster builds hosts: c0, c1 controllers (as many as given), w0 a worker.
func hosts(ctrls ...Host) []Host {
	for i := range ctrls {
		ctrls[i].Personality = Controller
	}
	return append(ctrls, Host{Hostname: "w0", Personality: Worker})
}

func wantClass(t *testing.T, name string, err, class error, mentions ...string) {
	t.Helper()
	if class == nil {
		if err != nil {
			t.Errorf("%s: unexpected error %v", name, err)
		}
		return
	}
	if !errors.Is(err, class) {
		t.Errorf("%s: error %v, want %v", name, err, class)
		return
	}
	for _, m := range mentions {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("%s: error %q does not mention %q", name, err, m)
		}
	}
}

func TestCheckStep(t *testing.T) {
	tests := []struct {
		state    State
		step     string
		want     error
		mentions []string
	}{
		{UpgradeStarted, StepDownloadImages, nil, nil},
		{DownloadingImagesFailed, StepDownloadImages, nil, nil},
		{UpgradeStarted, StepNetworking, ErrRefused, []string{"upgrade-started", "kupgrade upgrade download-images"}},
		{DownloadingImages, StepDownloadImages, ErrRefused, []string{"downloading-images", "if it is stuck, run `kupgrade recover`"}},
		{UpgradingKubelets, StepComplete, nil, nil},
		{UpgradeComplete, StepAbort, ErrRefused, []string{"kupgrade upgrade delete"}},
		{UpgradingFirstMaster, StepAbort, ErrRefused, []string{"kupgrade recover"}},
	}
	for _, tc := range tests {
		st, _ := StepNamed(tc.step)
		wantClass(t, string(tc.state)+"/"+tc.step, CheckStep(upgradeIn(tc.state), st), tc.want, tc.mentions...)
	}
}

func TestCheckDeleteAndComplete(t *testing.T) {
	for _, s := range AllStates() {
		err := CheckDelete(upgradeIn(s))
		deletable := s == UpgradeComplete || s == PostUpdatedApps || s == PostUpdatingAppsFailed || s == UpgradeAborted
		if deletable != (err == nil) {
			t.Errorf("CheckDelete(%s) = %v", s, err)
		}
	}
	done := []Host{{Hostname: "c0", Status: UpgradedKubelet}, {Hostname: "w0", Status: UpgradedKubelet}}
	wantClass(t, "complete, all done", CheckComplete(upgradeIn(UpgradingKubelets), done), nil)
	wantClass(t, "complete after uncordon", CheckComplete(upgradeIn(UncordonComplete), done), nil)
	pending := []Host{{Hostname: "c0", Status: UpgradedKubelet}, {Hostname: "w0"}}
	wantClass(t, "complete, a kubelet pending", CheckComplete(upgradeIn(UpgradingKubelets), pending), ErrRefused, "w0", "kubelet")
	wantClass(t, "complete too early", CheckComplete(upgradeIn(UpgradedFirstMaster), done), ErrRefused, "upgraded-first-master")
}

func TestCheckControlPlane(t *testing.T) {
	live := &Lease{Owner: "host:12:ab", Operation: "networking", ExpiresAt: now.Add(time.Minute)}
	expired := &Lease{Owner: "host:12:ab", Operation: "networking", ExpiresAt: now.Add(-time.Second)}
	atTarget := Host{Hostname: "c0", TargetVersion: "v1.30.2", ControlPlaneVersion: "v1.30.2"}
	tests := []struct {
		name     string
		state    State
		hosts    []Host
		host     string
		lease    *Lease
		running  State
		redo     bool
		want     error
		mentions []string
	}{
		{"first master", UpgradedNetworking, hosts(Host{Hostname: "c0"}, Host{Hostname: "c1"}), "c0", nil, UpgradingFirstMaster, false, nil, nil},
		{"first master after storage", UpgradedStorage, hosts(Host{Hostname: "c0"}), "c0", expired, UpgradingFirstMaster, false, nil, nil},
		{"first master, already at target: redo", UpgradedNetworking, hosts(Host{Hostname: "c0", ControlPlaneVersion: "v1.30.2"}), "c0", nil, UpgradingFirstMaster, true, nil, nil},
		{"second master", UpgradedFirstMaster, hosts(atTarget, Host{Hostname: "c1"}), "c1", nil, UpgradingSecondMaster, false, nil, nil},
		{"second master on the first", UpgradedFirstMaster, hosts(atTarget, Host{Hostname: "c1"}), "c0", nil, "", false, ErrRefused, []string{"c0 is the first master"}},
		{"no second master on one controller", UpgradedFirstMaster, hosts(atTarget), "c0", nil, "", false, ErrRefused, []string{"one-controller"}},
		{"retry first master on the tried host", UpgradingFirstMasterFailed, hosts(Host{Hostname: "c0", TargetVersion: "v1.30.2"}, Host{Hostname: "c1"}), "c0", nil, UpgradingFirstMaster, false, nil, nil},
		{"retry first master elsewhere", UpgradingFirstMasterFailed, hosts(Host{Hostname: "c0", TargetVersion: "v1.30.2"}, Host{Hostname: "c1"}), "c1", nil, "", false, ErrRefused, []string{"(c0)"}},
		{"retry second master, late failure: redo", UpgradingSecondMasterFailed, hosts(atTarget, Host{Hostname: "c1", TargetVersion: "v1.30.2", ControlPlaneVersion: "v1.30.2"}), "c1", nil, UpgradingSecondMaster, true, nil, nil},
		{"retry second master on the first", UpgradingSecondMasterFailed, hosts(atTarget, Host{Hostname: "c1", TargetVersion: "v1.30.2"}), "c0", nil, "", false, ErrRefused, []string{"(c1)"}},
		{"in flight", UpgradingSecondMaster, hosts(atTarget, Host{Hostname: "c1"}), "c1", nil, "", false, ErrRefused, []string{"upgrading-second-master", "kupgrade recover"}},
		{"live lease of another operation", UpgradedNetworking, hosts(Host{Hostname: "c0"}), "c0", live, "", false, ErrConflict, []string{"host:12:ab", "networking"}},
		{"host in flight", UpgradedNetworking, hosts(Host{Hostname: "c0", Status: UpgradingControlPlane}), "c0", nil, "", false, ErrRefused, []string{"c0", "upgrading-control-plane", "kupgrade recover"}},
		{"worker", UpgradedNetworking, hosts(Host{Hostname: "c0"}), "w0", nil, "", false, ErrRefused, []string{"not a controller"}},
		{"unknown host", UpgradedNetworking, hosts(Host{Hostname: "c0"}), "zz", nil, "", false, ErrNotFound, []string{"zz"}},
		{"too early", DownloadedImages, hosts(Host{Hostname: "c0"}), "c0", nil, "", false, ErrRefused, []string{"downloaded-images", "kupgrade upgrade networking"}},
	}
	for _, tc := range tests {
		running, redo, err := CheckControlPlane(upgradeIn(tc.state), tc.hosts, tc.host, tc.lease, now)
		wantClass(t, tc.name, err, tc.want, tc.mentions...)
		if running != tc.running || redo != tc.redo {
			t.Errorf("%s: running %q redo %v, want %q %v", tc.name, running, redo, tc.running, tc.redo)
		}
	}
}

func TestCheckKubelet(t *testing.T) {
	done := Host{Hostname: "c0", Status: UpgradedKubelet}
	tests := []struct {
		name     string
		state    State
		hosts    []Host
		host     string
		skip     bool
		want     error
		mentions []string
	}{
		{"controller first, two controllers", UpgradedSecondMaster, hosts(Host{Hostname: "c0"}, Host{Hostname: "c1"}), "c0", false, nil, nil},
		{"one controller", UpgradedFirstMaster, hosts(Host{Hostname: "c0"}), "c0", false, nil, nil},
		{"second master still to do", UpgradedFirstMaster, hosts(Host{Hostname: "c0"}, Host{Hostname: "c1"}), "c0", false, ErrRefused, []string{"second controller"}},
		{"worker before controllers", UpgradingKubelets, hosts(done, Host{Hostname: "c1"}), "w0", false, ErrRefused, []string{"c1"}},
		{"worker after controllers", UpgradingKubelets, hosts(done), "w0", false, nil, nil},
		{"already at target: skip", UpgradingKubelets, hosts(Host{Hostname: "c0", KubeletVersion: "v1.30.2"}), "c0", true, nil, nil},
		{"host in flight", UpgradingKubelets, hosts(Host{Hostname: "c0", Status: UpgradingKubelet}), "c0", false, ErrRefused, []string{"upgrading-kubelet", "kupgrade recover"}},
		{"too early", UpgradingSecondMaster, hosts(Host{Hostname: "c0"}), "c0", false, ErrRefused, []string{"upgrading-second-master", "kupgrade recover"}},
	}
	for _, tc := range tests {
		skip, err := CheckKubelet(upgradeIn(tc.state), tc.hosts, tc.host, nil, now)
		wantClass(t, tc.name, err, tc.want, tc.mentions...)
		if skip != tc.skip {
			t.Errorf("%s: skip %v, want %v", tc.name, skip, tc.skip)
		}
	}
	live := &Lease{Owner: "o", Operation: "kubelet@c1", ExpiresAt: now.Add(time.Second)}
	_, err := CheckKubelet(upgradeIn(UpgradingKubelets), hosts(done), "w0", live, now)
	wantClass(t, "live lease", err, ErrConflict, "kubelet@c1")
}
