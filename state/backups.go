package state

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Backups is what kupgrade knows of one controller's kubeadm backups for the current upgrade
// (kube_host_upgrade.backups, JSON): the controller as the first control-plane step of this
// upgrade found it, recorded in the transaction that put the host in flight, and the folders
// kubeadm made there since. Abort restores from these alone: a folder that existed before this
// upgrade is never restored from, and a controller with no record was never touched by it.
type Backups struct {
	// Tags are the static-pod manifests' image tags before the first control-plane step
	// (component -> tag; etcd's is etcd's own version).
	Tags map[string]string `json:"tags"`
	// ConfigSHA256 is /var/lib/kubelet/config.yaml's sha256 before that step ("" when missing).
	ConfigSHA256 string `json:"config_sha256,omitempty"`
	// Existing are kubeadm's backup folders (kubeadm-backup-manifests-*, kubeadm-kubelet-config*)
	// that were already there: left by earlier upgrades, never restored from.
	Existing []string `json:"existing"`
	// Manifests are the kubeadm-backup-manifests-* folders made during this upgrade, in the order
	// they were found.
	Manifests []string `json:"manifests,omitempty"`
	// KubeletConfig are the kubeadm-kubelet-config* folders made during this upgrade, in order.
	KubeletConfig []string `json:"kubelet_config,omitempty"`
}

// Recorded reports whether a control-plane step of this upgrade recorded the controller.
func (b Backups) Recorded() bool { return b.Tags != nil }

// Add returns b with the folders of dirs and kubeletDirs (oldest first) that were neither
// there before this upgrade nor recorded yet appended; ok is false when nothing is new.
func (b Backups) Add(dirs, kubeletDirs []string) (out Backups, ok bool) {
	out = b
	out.Manifests = appendNew(slices.Clone(b.Manifests), dirs, b.Existing)
	out.KubeletConfig = appendNew(slices.Clone(b.KubeletConfig), kubeletDirs, b.Existing)
	return out, len(out.Manifests) != len(b.Manifests) || len(out.KubeletConfig) != len(b.KubeletConfig)
}

func appendNew(to, add, existing []string) []string {
	for _, d := range add {
		if !slices.Contains(existing, d) && !slices.Contains(to, d) {
			to = append(to, d)
		}
	}
	return to
}

// EncodeBackups is the column's text ("" for no record).
func EncodeBackups(b Backups) (string, error) {
	if !b.Recorded() {
		return "", nil
	}
	raw, err := json.Marshal(b)
	if err != nil {
		return "", fmt.Errorf("encode backups: %w", err)
	}
	return string(raw), nil
}

// DecodeBackups reads the column's text ("" is no record).
func DecodeBackups(text string) (Backups, error) {
	var b Backups
	if text == "" {
		return b, nil
	}
	if err := json.Unmarshal([]byte(text), &b); err != nil {
		return Backups{}, fmt.Errorf("backups %.60q is not the JSON kupgrade writes: %w", text, err)
	}
	if b.Tags == nil {
		return Backups{}, fmt.Errorf("backups %.60q has no tags", text)
	}
	return b, nil
}
