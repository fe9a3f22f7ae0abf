package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// testBackups: the record of a controller's backups is written by the start of its first
// control-plane step, in that step's transaction, and kept by a retry's start (the baseline
// stands for the upgrade); AddBackups appends only the folders made during the upgrade, each
// once; a host with no record (never touched) is left without one; a hand edit
// that breaks the record is reported as an unreadable row naming the column.
func testBackups(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradedNetworking)
	before := state.Backups{Tags: map[string]string{"kube-apiserver": "v1.29.4"}, ConfigSHA256: "aa",
		Existing: []string{"/etc/kubernetes/tmp/kubeadm-backup-manifests-2024-01-01-00-00-00"}}
	start := func(from state.State, rec state.Backups) {
		t.Helper()
		_, err := s.Apply(ctx, state.Start("c1", state.ActorRunner, from, state.UpgradingFirstMaster,
			state.LeaseSpec{Owner: "o", Operation: "control-plane@controller-0", TTL: time.Minute},
			state.OnHost("controller-0", state.HostIdle, state.UpgradingControlPlane), state.WithTarget("v1.30.2"),
			state.WithBackupsBefore(rec)))
		if err != nil {
			t.Fatal(err)
		}
	}
	start(state.UpgradedNetworking, before)
	if got := mustHost(t, s, "c1", "controller-0").Backups; !got.Recorded() || got.ConfigSHA256 != "aa" || !slices.Equal(got.Existing, before.Existing) {
		t.Fatalf("backups after the first start: %+v", got)
	}
	made := "/etc/kubernetes/tmp/kubeadm-backup-manifests-2025-03-14-09-30-00"
	got, err := s.AddBackups(ctx, "c1", "controller-0", append(slices.Clone(before.Existing), made), []string{"/etc/kubernetes/tmp/kubeadm-kubelet-config1"})
	if err != nil || !slices.Equal(got.Manifests, []string{made}) || len(got.KubeletConfig) != 1 {
		t.Fatalf("AddBackups: %+v, %v; want only %s made", got, err, made)
	}
	if _, err := s.Apply(ctx, state.Fail("c1", state.ActorRunner, state.UpgradingFirstMaster, state.UpgradingFirstMasterFailed,
		state.HeldBy("o"), state.OnHost("controller-0", state.UpgradingControlPlane, state.HostIdle))); err != nil {
		t.Fatal(err)
	}
	// The retry starts from a host where kubeadm already moved things: its view is not the baseline.
	start(state.UpgradingFirstMasterFailed, state.Backups{Tags: map[string]string{"kube-apiserver": "v1.30.2"}, ConfigSHA256: "bb"})
	redo := "/etc/kubernetes/tmp/kubeadm-backup-manifests-2025-03-14-09-40-00"
	if _, err := s.AddBackups(ctx, "c1", "controller-0", []string{made, redo}, nil); err != nil {
		t.Fatal(err)
	}
	h := mustHost(t, s, "c1", "controller-0")
	if h.Backups.Tags["kube-apiserver"] != "v1.29.4" || h.Backups.ConfigSHA256 != "aa" || !slices.Equal(h.Backups.Manifests, []string{made, redo}) {
		t.Errorf("after the retry: %+v, want the first baseline and both folders in order", h.Backups)
	}
	if got, err := s.AddBackups(ctx, "c1", "controller-1", []string{made}, nil); err != nil || got.Recorded() {
		t.Errorf("AddBackups on an untouched host: %+v, %v; want no record", got, err)
	}
	if h := mustHost(t, s, "c1", "controller-1"); h.Backups.Recorded() {
		t.Errorf("untouched controller-1 has a record: %+v", h.Backups)
	}
	b.Exec(t, "UPDATE kube_host_upgrade SET backups = '{not json' WHERE backups IS NOT NULL")
	_, err = s.Hosts(ctx, "c1")
	if re := state.RowErrors(err); len(re) != 1 || re[0].Column != "backups" || re[0].Host != "controller-0" {
		t.Errorf("a broken record read as %v, want one unreadable kube_host_upgrade.backups of controller-0", err)
	}
}
