package kubeadm

import (
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// Snapshot is what kubeadm's progress looks like on one host's disk (docs/states.md "The kubelet-config
// check"). Paths are the host's paths; lists of folders are newest first. Its JSON field names are
// stored in the events' evidence: they do not change.
type Snapshot struct {
	// Taken is when the probe ran (UTC); zero means "no snapshot".
	Taken        time.Time `json:"taken"`
	ConfigExists bool      `json:"config_exists"`
	ConfigSHA256 string    `json:"config_sha256,omitempty"`
	ConfigMtime  time.Time `json:"config_mtime,omitzero"`
	// Manifests maps a static-pod component (kube-apiserver, kube-controller-manager,
	// kube-scheduler, etcd) to its image tag; components without a manifest are absent.
	Manifests             map[string]string `json:"manifests"`
	UpgradedManifestsDirs []string          `json:"upgraded_manifests_dirs"`
	BackupDirs            []string          `json:"backup_dirs"`
	KubeletConfigBackups  []KubeletBackup   `json:"kubelet_config_backups"`
	// Fence is the host's kupgrade fence (nil when the host has none): a busy one means another
	// kupgrade command still runs there.
	Fence *FenceStamp `json:"fence,omitempty"`
	// Packages is what a package install left to put right (nil when nothing): packages it
	// unheld and nobody held again, an install still running, an interrupted dpkg.
	Packages *Packages `json:"packages,omitempty"`
	// Installed is what the kubelet and kubeadm binaries report (with Prober.Versions).
	Installed Installed `json:"-"`
}

// KubeletBackup is one /etc/kubernetes/tmp/kubeadm-kubelet-config* folder.
type KubeletBackup struct {
	Path      string `json:"path"`
	HasConfig bool   `json:"has_config"`
}

// What kubeadm writes, and where (docs/kubeadm.md).
const (
	// configPath is the kubelet's configuration, rewritten by the kubelet-config phase.
	configPath = "/var/lib/kubelet/config.yaml"
	// manifestsDir holds the static-pod manifests the control-plane phase swaps.
	manifestsDir = "/etc/kubernetes/manifests"
	// tmpDir holds kubeadm's working folder (kubeadm-upgraded-manifests*) and its backups
	// (kubeadm-backup-manifests-<time>, kubeadm-kubelet-config*).
	tmpDir = "/etc/kubernetes/tmp"
)

// staticPods are the manifests kubeadm writes on a controller, in the order it upgrades them.
var staticPods = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// controlPlane are the components whose lowest tag is the control-plane version (docs/kubeadm.md).
var controlPlane = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// MissingControlPlane lists the control-plane components without a manifest on a host that has
// the manifest of at least one other: what a kubeadm stopped in the middle of a swap leaves
// (nil on a worker, which has none, and on a complete controller).
func (s Snapshot) MissingControlPlane() []string {
	var missing []string
	for _, c := range controlPlane {
		if _, ok := s.Manifests[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) == len(controlPlane) {
		return nil
	}
	return missing
}

// ControlPlaneVersion is the lowest image tag of the control-plane manifests ("" when none).
func (s Snapshot) ControlPlaneVersion() string {
	low := ""
	for _, c := range controlPlane {
		if t, ok := s.Manifests[c]; ok && (low == "" || compareTags(t, low) < 0) {
			low = t
		}
	}
	return low
}

// compareTags orders image tags by the release they carry (state.Version's order, the one
// comparison of versions kupgrade has): v1.30.2-rc.0 counts as v1.30.2. Tags that carry no
// release sort by text.
func compareTags(a, b string) int {
	va, erra := state.ParseVersion(release(a))
	vb, errb := state.ParseVersion(release(b))
	if erra != nil || errb != nil {
		return strings.Compare(a, b)
	}
	return va.Compare(vb)
}

// release drops a tag's pre-release or build suffix: v1.31.0-alpha.1+abc is v1.31.0.
func release(tag string) string {
	if i := strings.IndexAny(tag, "-+"); i >= 0 {
		return tag[:i]
	}
	return tag
}
