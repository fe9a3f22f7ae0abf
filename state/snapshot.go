package state

import (
	"fmt"
	"strings"
	"time"
)

// EtcdSnapshot is an etcd snapshot an upgrade took before its control plane moved (table
// etcd_snapshot): where kupgrade keeps it, what identifies its content, and which upgrade and
// hop it was taken for. Abort restores from the one of hop 0: the cluster as the upgrade found it.
type EtcdSnapshot struct {
	ID          int64     `json:"-"`
	Cluster     string    `json:"-"`
	UpgradeUUID string    `json:"upgrade_uuid"`
	Hop         int       `json:"hop"`
	Hostname    string    `json:"host"`     // the controller it was saved from
	Path        string    `json:"path"`     // on kupgrade's side: the runner's copy
	SHA256      string    `json:"sha256"`   // of the file, hex
	Revision    int64     `json:"revision"` // etcd's revision when saved
	Hash        int64     `json:"hash"`     // etcd's own hash of the snapshot (snapshot status)
	Size        int64     `json:"size"`     // bytes
	External    bool      `json:"external"` // saved from an external etcd
	CreatedAt   time.Time `json:"created_at"`
	// RunnerHost is the machine Path is on; ControllerPath the file etcdctl saved on Hostname,
	// which abort falls back to when the runner's copy is missing or damaged (its sha256 the
	// one recorded). Both "" in a record written before migration 0016.
	RunnerHost     string `json:"runner_host,omitempty"`
	ControllerPath string `json:"controller_path,omitempty"`
}

// Check refuses a snapshot record that could not be restored from: each missing fact named.
func (s EtcdSnapshot) Check() error {
	var bad []string
	if s.Cluster == "" || s.UpgradeUUID == "" || s.Hostname == "" {
		bad = append(bad, "no cluster, upgrade or host")
	}
	if s.Path == "" {
		bad = append(bad, "no path")
	}
	if len(s.SHA256) != 64 || strings.Trim(s.SHA256, "0123456789abcdef") != "" {
		bad = append(bad, fmt.Sprintf("sha256 %q is not 64 hex digits", s.SHA256))
	}
	if s.Revision <= 0 || s.Size <= 0 || s.Hop < 0 {
		bad = append(bad, fmt.Sprintf("revision %d, size %d, hop %d (each must be positive)", s.Revision, s.Size, s.Hop))
	}
	if len(bad) > 0 {
		return fmt.Errorf("etcd snapshot record: %s: %w", strings.Join(bad, "; "), ErrBadInput)
	}
	return nil
}

// String names the snapshot for people: where it is (the runner's copy, and the controller's
// file when recorded), its revision and its checksum.
func (s EtcdSnapshot) String() string {
	also := ""
	if s.ControllerPath != "" {
		also = ", also at " + s.Hostname + ":" + s.ControllerPath
	}
	return fmt.Sprintf("%s (revision %d, %d bytes, sha256 %s, from %s, hop %d%s)", s.Path, s.Revision, s.Size, s.SHA256, s.Hostname, s.Hop, also)
}

// SnapshotFor returns the snapshot of upgradeUUID's hop among snaps (newest first), if any.
func SnapshotFor(snaps []EtcdSnapshot, upgradeUUID string, hop int) (EtcdSnapshot, bool) {
	for _, s := range snaps {
		if s.UpgradeUUID == upgradeUUID && s.Hop == hop {
			return s, true
		}
	}
	return EtcdSnapshot{}, false
}
