package upgrade_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state"
)

// The control-plane step installed kubeadm at the target on controller-0: abort puts it back at
// the from version there (and asks kubeadm-config to go back), not on controller-1, which this
// upgrade never touched. A restore after which kubeadm is still at the target ends
// upgrade-aborting-failed naming it; the retry puts kubeadm back and ends upgrade-aborted.
func TestAbortPutsKubeadmBack(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		if name != "abort" {
			return nil, nil, false
		}
		f.c.onPlay = nil
		f.c.mu.Lock() // the manifests and config.yaml go back, kubeadm does not
		s := snapAt("v1.29.4", "sha-old", false)
		s.BackupDirs, s.KubeletConfigBackups = f.c.snaps[limit].BackupDirs, f.c.snaps[limit].KubeletConfigBackups
		f.c.snaps[limit] = s
		f.c.mu.Unlock()
		return &runner.Recap{Hosts: map[string]*runner.HostRecap{}}, nil, true
	}
	err := f.w.Abort(t.Context())
	if err == nil || !strings.Contains(err.Error(), "controller-0: kubeadm at v1.30.1, want v1.29.4") {
		t.Fatalf("abort: %v, want a failure naming controller-0's kubeadm", err)
	}
	f.wantState(t, state.UpgradeAbortingFailed)
	played := len(f.c.played())
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	if got := f.c.played()[played:]; !slices.Equal(got, []string{"abort@controller-0"}) {
		t.Errorf("the retry played %v, want the restore on controller-0 alone", got)
	}
	vars := f.c.vars[len(f.c.vars)-1]
	r := vars["abort_restore"].(map[string]any)["controller-0"].(map[string]any)
	if r["kubeadm"] != true || vars["to_version"] != "v1.29.4" || vars["abort_cluster_config"] != "v1.30.1" {
		t.Errorf("abort's variables: kubeadm %v, to_version %v, abort_cluster_config %v; want true, v1.29.4, v1.30.1",
			r["kubeadm"], vars["to_version"], vars["abort_cluster_config"])
	}
	f.wantState(t, state.UpgradeAborted)
	if got := f.c.kubeadm; got["controller-0"] != "v1.29.4" || got["controller-1"] != "v1.29.4" {
		t.Errorf("kubeadm after the abort: %v, want v1.29.4 on both controllers", got)
	}
}

// An abort that stopped once the manifests and kubeadm were back, before kubeadm-config's
// kubernetesVersion went back, is retried on the first controller this upgrade touched when
// the API server still reports a version of this upgrade there, and on none when it reports
// the from version.
func TestAbortPutsClusterConfigurationBack(t *testing.T) {
	for _, tc := range []struct {
		says string
		want []string
	}{{"v1.30.1", []string{"abort@controller-0"}}, {"v1.29.4", nil}} {
		f := newFixture(t)
		f.at(t, state.UpgradedFirstMaster)
		f.c.mu.Lock()
		s := snapAt("v1.29.4", "sha-old", false)
		s.BackupDirs, s.KubeletConfigBackups = f.c.snaps["controller-0"].BackupDirs, f.c.snaps["controller-0"].KubeletConfigBackups
		f.c.snaps["controller-0"], f.c.kubeadm["controller-0"] = s, "v1.29.4"
		f.c.results = map[string]runnertest.Result{"get configmap kubeadm-config": {Stdout: tc.says + "\n"}}
		f.c.mu.Unlock()
		played := len(f.c.played())
		if err := f.w.Abort(t.Context()); err != nil {
			t.Fatalf("kubeadm-config at %s: abort: %v", tc.says, err)
		}
		if got := f.c.played()[played:]; !slices.Equal(got, tc.want) {
			t.Errorf("kubeadm-config at %s: played %v, want %v", tc.says, got, tc.want)
		}
		f.wantState(t, state.UpgradeAborted)
	}
}
