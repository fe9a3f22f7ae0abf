package upgrade

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/state"
)

// backupsBefore is the record a controller's first control-plane step of an upgrade writes when
// it puts the host in flight: what the host was like before kubeadm ran.
func backupsBefore(s *kubeadm.Snapshot) state.Backups {
	b := state.Backups{Tags: maps.Clone(s.Manifests), ConfigSHA256: s.ConfigSHA256, Existing: slices.Clone(s.BackupDirs)}
	if b.Tags == nil {
		b.Tags = map[string]string{}
	}
	for _, k := range s.KubeletConfigBackups {
		b.Existing = append(b.Existing, k.Path)
	}
	return b
}

// madeSince are s's manifest backups and kubelet-config backups holding a config.yaml, oldest
// first (the snapshot lists them newest first): the store keeps those made during the upgrade.
func madeSince(s kubeadm.Snapshot) (dirs, kubeletDirs []string) {
	dirs = slices.Clone(s.BackupDirs)
	slices.Reverse(dirs)
	for _, k := range slices.Backward(s.KubeletConfigBackups) {
		if k.HasConfig {
			kubeletDirs = append(kubeletDirs, k.Path)
		}
	}
	return dirs, kubeletDirs
}

// recordBackups adds the backup folders kubeadm made on host during this upgrade, as the
// snapshot after a control-plane step shows them. A failure to record is logged, not fatal:
// abort finds the folders not recorded from the host itself (those absent from the baseline).
func (w *Workflow) recordBackups(ctx context.Context, host string, after kubeadm.Snapshot) {
	dirs, kubeletDirs := madeSince(after)
	err := w.retryDB(ctx, "record kubeadm's backups on "+host, func(ctx context.Context) error {
		_, err := w.Store.AddBackups(ctx, w.Cluster, host, dirs, kubeletDirs)
		return err
	})
	if err != nil {
		w.log().Warn("kubeadm's backups were not recorded; abort will read them from the host", "host", host, "error", err)
	}
}

// backupVars adds to vars what the control-plane playbook's repair of a missing manifest reads:
// the tags hostname's first control-plane step of this upgrade found and the folders that were
// there before it (both empty before that step: no folder is this upgrade's yet).
func backupVars(hosts []state.Host, hostname string, vars map[string]any) map[string]any {
	var b state.Backups
	for _, h := range hosts {
		if h.Hostname == hostname {
			b = h.Backups
		}
	}
	vars[playbooks.VarBackupTags] = tagLines(b.Tags)
	vars[playbooks.VarBackupExisting] = strings.Join(b.Existing, "\n")
	return vars
}

// tagLines spells tags as "component tag" lines, sorted.
func tagLines(tags map[string]string) string {
	lines := make([]string, 0, len(tags))
	for c, t := range tags {
		lines = append(lines, c+" "+t)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
