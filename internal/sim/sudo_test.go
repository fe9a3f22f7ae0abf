package sim

import (
	"strings"
	"testing"
)

// A host whose sudo asks for a password refuses `sudo -n` as sudo does, running nothing; once
// it no longer asks, the command runs.
func TestSudoAsksForAPassword(t *testing.T) {
	f := newTestFleet(t)
	h := f.Clusters[0].Hosts[0]
	h.RequireSudoPassword(true)
	rc, _, errs := run(t, h, "sudo -n -u root -- sh -c 'touch /tmp/ran'")
	if _, ran := h.File("/tmp/ran"); rc != 1 || ran || !strings.Contains(errs, "sudo: a password is required") {
		t.Fatalf("sudo -n with a password asked: exit %d, ran %v, stderr %q; want 1, nothing run, sudo's message", rc, ran, errs)
	}
	h.RequireSudoPassword(false)
	if rc, _, errs := run(t, h, "sudo -n -u root -- sh -c 'touch /tmp/ran'"); rc != 0 {
		t.Fatalf("sudo -n without a password: exit %d: %s", rc, errs)
	}
	if _, ran := h.File("/tmp/ran"); !ran {
		t.Error("the command did not run")
	}
}
