package kubeadm_test

import (
	"os"
	"strings"
	"testing"
)

// The probe reads the host's stamp with the runner's format: a stamp it cannot read (empty,
// torn, edited by hand, of an older format) is reported damaged, with none of its words taken
// for a generation or an owner; a host whose lock has no stamp yet is not.
func TestProbeReportsADamagedStamp(t *testing.T) {
	for name, stamp := range map[string]string{
		"empty":        "",
		"torn":         fenceStamp[:len(fenceStamp)/2],
		"edited":       strings.Replace(fenceStamp, " 7 ", " 3 ", 1) + "\n",
		"older format": "9f0c2d4e 7 ops-1 2025-07-15T09:12:30Z kubeadm upgrade node\n",
	} {
		n := newNode(t, true)
		n.stampFence()
		if err := os.WriteFile(n.path("var/lib/kupgrade/fence"), []byte(stamp), 0o644); err != nil {
			t.Fatal(err)
		}
		f := n.probe().Fence
		if f == nil || !f.Damaged || f.Generation != 0 || f.Owner != "" || f.Command != "" {
			t.Errorf("%s stamp: probe reports %+v, want damaged and nothing read from it", name, f)
		}
	}
	n := newNode(t, true)
	n.stampFence()
	if err := os.Remove(n.path("var/lib/kupgrade/fence")); err != nil {
		t.Fatal(err)
	}
	if f := n.probe().Fence; f == nil || f.Damaged || f.Busy {
		t.Errorf("a lock with no stamp yet: probe reports %+v, want a free fence, not damaged", f)
	}
	n = newNode(t, true)
	n.stampFence()
	if f := n.probe().Fence; f == nil || f.Damaged || f.Cluster != "lab" || f.Generation != 7 {
		t.Errorf("a sound stamp: probe reports %+v, want cluster lab, generation 7", f)
	}
}
