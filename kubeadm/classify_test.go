package kubeadm

import (
	"strings"
	"testing"
	"time"
)

const (
	oldTag = "v1.29.6"
	newTag = "v1.30.2"
	sha2   = "2222222222222222222222222222222222222222222222222222222222222222"
	tmp    = "/etc/kubernetes/tmp/"
)

func snap(sha string, tags [3]string, mutate ...func(*Snapshot)) Snapshot {
	s := Snapshot{Taken: time.Unix(1700000000, 0), ConfigExists: sha != "", ConfigSHA256: sha,
		Manifests: map[string]string{"etcd": "3.5.12-0"}}
	for i, c := range controlPlane {
		if tags[i] != "" {
			s.Manifests[c] = tags[i]
		}
	}
	for _, m := range mutate {
		m(&s)
	}
	return s
}

var (
	allOld = [3]string{oldTag, oldTag, oldTag}
	allNew = [3]string{newTag, newTag, newTag}
	noCP   = [3]string{}
)

func withBackup(s *Snapshot) {
	s.BackupDirs = append(s.BackupDirs, tmp+"kubeadm-backup-manifests-2024")
}
func withUpgraded(s *Snapshot) {
	s.UpgradedManifestsDirs = append(s.UpgradedManifestsDirs, tmp+"kubeadm-upgraded-manifests42")
}
func withKubeletBackup(s *Snapshot) {
	s.KubeletConfigBackups = append(s.KubeletConfigBackups, KubeletBackup{Path: tmp + "kubeadm-kubelet-config7", HasConfig: true})
}
func withEmptyKubeletBackup(s *Snapshot) {
	s.KubeletConfigBackups = append(s.KubeletConfigBackups, KubeletBackup{Path: tmp + "kubeadm-kubelet-config9"})
}

func TestClassify(t *testing.T) {
	before := snap(sha1, allOld)
	cases := []struct {
		name          string
		before, after Snapshot
		class         FindingClass
		summary, next string // substrings
	}{
		{"nothing changed", before, snap(sha1, allOld), FindingPreflight, "Nothing changed", "needs no repair"},
		{"leftover folder alone is still preflight", before, snap(sha1, allOld, withUpgraded), FindingPreflight, "v1.29.6", "retry"},
		{"redo at target changed nothing", snap(sha1, allNew), snap(sha1, allNew), FindingPreflight, "at v1.30.2", "retry"},
		{"worker untouched", snap(sha1, noCP), snap(sha1, noCP), FindingPreflight, "no control-plane manifests", "retry"},
		{"killed mid-swap", before, snap(sha1, [3]string{newTag, oldTag, oldTag}, withUpgraded, withBackup), FindingSwapping,
			"only 1 of 3 control-plane manifests are at v1.30.2 (kube-controller-manager at v1.29.6, kube-scheduler at v1.29.6) and /etc/kubernetes/tmp/kubeadm-upgraded-manifests42 was left behind", "swaps the others"},
		{"control plane done", before, snap(sha1, allNew, withBackup), FindingControlPlaneDone, "is unchanged and the control-plane manifests are at v1.30.2", "kubelet-config"},
		{"seed: rewritten with backup", before, snap(sha2, allNew, withBackup, withKubeletBackup), FindingConfigRewritten,
			"rewritten (the old copy is in /etc/kubernetes/tmp/kubeadm-kubelet-config7)", "redo is safe"},
		{"worker rewritten with backup", snap(sha1, noCP), snap(sha2, noCP, withKubeletBackup), FindingConfigRewritten, "rewritten", "redo"},
		{"rewritten, manifests not at target", before, snap(sha2, allOld, withEmptyKubeletBackup), FindingConfigRewritten, "with no backup copy", "redo"},
		{"all done, no backup kept", before, snap(sha2, allNew, withBackup), FindingComplete, "every phase is done", "record the step"},
		{"missing, backup holds it", before, snap("", allNew, withEmptyKubeletBackup, withKubeletBackup), FindingConfigMissing,
			"/var/lib/kubelet/config.yaml is missing", "cp -p /etc/kubernetes/tmp/kubeadm-kubelet-config7/config.yaml /var/lib/kubelet/config.yaml"},
		{"missing, no backup", before, snap("", allNew), FindingConfigMissing, "is missing", "kubeadm upgrade node phase kubelet-config"},
		{"missing, only an earlier run's backup", snap(sha1, allOld, withKubeletBackup), snap("", allNew, withKubeletBackup), FindingConfigMissing,
			"is missing", "from earlier runs and may hold another version's configuration: regenerate it"},
		{"rolled back", before, snap(sha1, allOld, withBackup, withUpgraded), FindingRolledBack, "made the backup /etc/kubernetes/tmp/kubeadm-backup-manifests-2024", "journalctl"},
		{"moved elsewhere", before, snap(sha1, [3]string{"v1.31.0", oldTag, oldTag}), FindingUnknown, "tags other than v1.30.2", "look at"},
		{"no before snapshot", Snapshot{}, snap(sha2, allNew, withKubeletBackup), FindingUnknown, "No snapshot from before", "redo is safe"},
		{"no before, leftover", Snapshot{}, snap(sha2, [3]string{newTag, oldTag, oldTag}, withUpgraded), FindingUnknown, "only 1 of 3", "left behind"},
		{"apiserver moved to its backup, the new one not yet in", before, snap(sha1, [3]string{"", oldTag, oldTag}, withUpgraded, withBackup), FindingManifestMissing,
			"/etc/kubernetes/manifests/kube-apiserver.yaml is missing while other control-plane manifests are there", "puts the missing manifest back"},
		{"seed after a cut swap: config rewritten, apiserver missing", before, snap(sha2, [3]string{"", oldTag, oldTag}, withBackup, withKubeletBackup), FindingManifestMissing,
			"takes this controller for a worker", "kubeadm-backup-manifests-*"},
		{"no before, missing config", Snapshot{}, snap("", allNew, withKubeletBackup), FindingConfigMissing, "missing", "cp -p"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Classify(c.before, c.after, newTag)
			if f.Class != c.class {
				t.Fatalf("class = %s, want %s (%s)", f.Class, c.class, f.Summary)
			}
			if !strings.Contains(f.Summary, c.summary) || !strings.Contains(f.Next, c.next) {
				t.Errorf("summary %q\nnext %q\nwant them to contain %q and %q", f.Summary, f.Next, c.summary, c.next)
			}
			if !strings.HasSuffix(f.Summary, ".") || strings.Count(f.Summary, ". ") > 0 {
				t.Errorf("summary is not one sentence: %q", f.Summary)
			}
		})
	}
}

func TestSnapshotMapRoundTrip(t *testing.T) {
	s := snap(sha1, [3]string{newTag, oldTag, newTag}, withBackup, withUpgraded, withKubeletBackup)
	s.ConfigMtime = time.Unix(1700000000, 0).UTC()
	s.Fence = &FenceStamp{Busy: true, Cluster: "lab", Key: "u1", Generation: 4, Owner: "o", Since: s.ConfigMtime, Command: "upgrade (sha256:0a)"}
	m := s.Map()
	if m["control_plane_version"] != oldTag || m["changed"] != false || m["config_sha256"] != sha1 {
		t.Errorf("map = %v", m)
	}
	back, err := SnapshotFromValue(m)
	if err != nil {
		t.Fatal(err)
	}
	if f := Classify(back, s, newTag); f.Class != FindingPreflight {
		t.Errorf("a snapshot read back from its map must equal the original: %s (%s)", f.Class, f.Summary)
	}
	if !back.Taken.Equal(s.Taken) || !back.ConfigMtime.Equal(s.ConfigMtime) || len(back.KubeletConfigBackups) != 1 {
		t.Errorf("round trip lost data: %+v", back)
	}
	if back.Fence == nil || *back.Fence != *s.Fence {
		t.Errorf("round trip of the fence: %+v, want %+v", back.Fence, s.Fence)
	}
}
