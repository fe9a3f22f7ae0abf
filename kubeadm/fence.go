package kubeadm

import (
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/internal/fencefile"
)

// FenceStamp is what the probe found of the host's fence: whether a kupgrade command holds it
// right now, and the stamp of the last command that took it (internal/fencefile). Its JSON field
// names are stored in the events' evidence: they do not change.
type FenceStamp struct {
	Busy       bool      `json:"busy"`
	Damaged    bool      `json:"damaged,omitempty"` // the stamp cannot be read: fenced commands are refused
	Cluster    string    `json:"cluster,omitempty"`
	ClusterUID string    `json:"cluster_uid,omitempty"` // the cluster's kube-system UID, when the stamp names it
	Database   string    `json:"database,omitempty"`    // the database of the stamp's upgrade, when the stamp names it
	Key        string    `json:"key,omitempty"`         // the upgrade's id
	Generation int64     `json:"generation,omitempty"`
	Owner      string    `json:"owner,omitempty"`
	Since      time.Time `json:"since,omitzero"`
	Command    string    `json:"command,omitempty"` // the task's name and the command's digest, never its text
}

// Words the probe prints instead of a stamp line: the host has no stamp, or one it cannot read.
const (
	noStamp   = "none"
	tornStamp = "torn"
)

// parseStamp reads the stamp's line; a stamp it cannot read is reported Damaged, with no field
// taken from it (the lock's state is still what it is).
func parseStamp(busy bool, line string) *FenceStamp {
	if line == noStamp {
		return &FenceStamp{Busy: busy}
	}
	st, err := fencefile.Parse(line)
	if err != nil {
		return &FenceStamp{Busy: busy, Damaged: true}
	}
	name, uid := fencefile.SplitCluster(st.Cluster)
	owner, db := fencefile.SplitOwner(st.Owner)
	return &FenceStamp{Busy: busy, Cluster: name, ClusterUID: uid, Key: st.Key, Generation: st.Generation, Owner: owner, Database: db, Since: st.Since, Command: st.Label}
}

// busyAdvice is what the operator must do while another kupgrade command runs on the host, ""
// when none does.
func (s *Snapshot) busyAdvice() string {
	if s.Fence == nil || !s.Fence.Busy {
		return ""
	}
	if s.Fence.Damaged {
		return "another kupgrade command is still running on the host (its fence's stamp cannot be read): wait for it"
	}
	since := "?"
	if !s.Fence.Since.IsZero() {
		since = s.Fence.Since.UTC().Format(time.RFC3339)
	}
	owner := orUnknown(s.Fence.Owner)
	if s.Fence.Database != "" {
		owner += " with the database " + s.Fence.Database
	}
	return fmt.Sprintf("another kupgrade command is still running on the host (cluster %s, generation %d, owner %s, since %s: %s): wait for it",
		orUnknown(s.Fence.Cluster), s.Fence.Generation, owner, since, orUnknown(s.Fence.Command))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
