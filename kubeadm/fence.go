package kubeadm

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// fenceDir is where the runner keeps a host's fence (runner.DefaultFenceDir): fence.lock, locked
// for the life of each kupgrade command on the host, and fence, the stamp the last one wrote,
// "key generation owner start command...". The probe only reads them; kubeadm does not know the
// runner, so the path and the stamp's form are written here again.
const fenceDir = "/var/lib/kupgrade"

// FenceStamp is what the probe found of the host's fence: whether a kupgrade command holds it
// right now, and the stamp of the last command that took it. Its JSON field names are stored in
// the events' evidence: they do not change.
type FenceStamp struct {
	Busy       bool      `json:"busy"`
	Key        string    `json:"key,omitempty"` // the upgrade's id
	Generation int64     `json:"generation,omitempty"`
	Owner      string    `json:"owner,omitempty"`
	Since      time.Time `json:"since,omitzero"`
	Command    string    `json:"command,omitempty"`
}

// parseStamp reads the stamp's line; a stamp it cannot read leaves the fields it could not
// read empty (the lock's state is what matters).
func parseStamp(busy bool, line string) *FenceStamp {
	st := &FenceStamp{Busy: busy}
	f := strings.SplitN(line, " ", 5)
	get := func(i int) string {
		if i < len(f) {
			return f[i]
		}
		return ""
	}
	st.Key, st.Owner, st.Command = get(0), get(2), get(4)
	st.Generation, _ = strconv.ParseInt(get(1), 10, 64)
	st.Since, _ = time.Parse(time.RFC3339, get(3))
	return st
}

// busyAdvice is what the operator must do while another kupgrade command runs on the host, ""
// when none does.
func (s *Snapshot) busyAdvice() string {
	if s.Fence == nil || !s.Fence.Busy {
		return ""
	}
	since := "?"
	if !s.Fence.Since.IsZero() {
		since = s.Fence.Since.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("another kupgrade command is still running on the host (generation %d, owner %s, since %s: %s): wait for it",
		s.Fence.Generation, orUnknown(s.Fence.Owner), since, orUnknown(s.Fence.Command))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
