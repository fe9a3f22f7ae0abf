package main

import (
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// `upgrade show` names each etcd snapshot's time, its age and revision and, for the one abort
// restores from, what `upgrade abort --restore-etcd` would discard.
func TestShowNamesWhatAnEtcdRestoreDiscards(t *testing.T) {
	saved := time.Date(2025, 3, 7, 18, 0, 0, 0, time.UTC)
	s := state.EtcdSnapshot{Path: "/snap/a.db", Revision: 321, Size: 9, SHA256: strings.Repeat("a", 64), Hostname: "controller-0", CreatedAt: saved}
	line := snapshotLine(s, saved.Add(62*time.Hour+5*time.Minute))
	for _, want := range []string{"/snap/a.db (revision 321", "saved 2025-03-07 18:00:00 UTC (2d14h ago) at etcd revision 321",
		"`upgrade abort --restore-etcd` puts etcd back to this revision, discarding every API write since"} {
		if !strings.Contains(line, want) {
			t.Errorf("the snapshot's line lacks %q:\n%s", want, line)
		}
	}
	s.Hop = 1
	if line := snapshotLine(s, saved); strings.Contains(line, "--restore-etcd") {
		t.Errorf("a later hop's snapshot, which abort does not restore, says:\n%s", line)
	}
}
