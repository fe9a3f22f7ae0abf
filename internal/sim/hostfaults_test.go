package sim

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner/sshconn"
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

// An unreachable host cuts every new SSH connection during its handshake, and runs nothing;
// reachable again, it answers.
func TestUnreachableHostCutsItsConnections(t *testing.T) {
	f := newTestFleet(t)
	h := f.Clusters[0].Hosts[0]
	h.SetUnreachable(true)
	inv, err := inventory.Load(filepath.Join(f.Inventories, f.Clusters[0].Name+".yml"))
	if err != nil {
		t.Fatal(err)
	}
	ih, _ := inv.Host(h.Name)
	if c, err := (&sshconn.Dialer{KnownHosts: f.KnownHosts}).Dial(t.Context(), ih); err == nil || !errors.Is(err, fault.ErrUnreachable) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("dial an unreachable host: %v, want unreachable", err)
	}
	if _, ran := h.File("/tmp/ran"); ran {
		t.Fatal("an unreachable host ran the command")
	}
	h.SetUnreachable(false)
	if rc, errs, err := sshRun(t.Context(), t, f, h, "touch /tmp/ran", nil); err != nil || rc != 0 {
		t.Fatalf("reachable again: rc %d, %v, %s", rc, err, errs)
	}
}
