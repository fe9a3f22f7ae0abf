package kubeadm

import (
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/fencefile"
)

// A stamp naming its cluster's UID and its upgrade's database is read into its parts, and the
// advice while it is busy names the database.
func TestParseStampReadsTheIdentity(t *testing.T) {
	line := fencefile.Stamp{Cluster: fencefile.ClusterField("lab", "uid-1"), Key: "u1", Generation: 2,
		Owner: fencefile.OwnerField("jump:1:aa", "sqlite:jump:/db"), Since: time.Unix(1796378400, 0).UTC(), Until: time.Unix(1796378430, 0), Label: "kubeadm"}.Line()
	got := parseStamp(true, strings.TrimSuffix(line, "\n"))
	if got.Cluster != "lab" || got.ClusterUID != "uid-1" || got.Owner != "jump:1:aa" || got.Database != "sqlite:jump:/db" {
		t.Fatalf("parsed %+v, want lab / uid-1 / jump:1:aa / sqlite:jump:/db", got)
	}
	s := Snapshot{Fence: got}
	if a := s.busyAdvice(); !strings.Contains(a, "owner jump:1:aa with the database sqlite:jump:/db") {
		t.Errorf("advice %q does not name the owner's database", a)
	}
}
