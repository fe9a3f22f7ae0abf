package upgrade

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
)

// A task whose sudo asks for a password fails with the advice kupgrade owes: it runs `sudo -n`
// and wants passwordless sudo; a task that failed otherwise gets no such advice.
func TestSudoPasswordFailureHintsAtSudoN(t *testing.T) {
	for _, c := range []struct {
		stderr string
		hint   bool
	}{
		{"sudo: a password is required\n", true},
		{"sudo: a terminal is required to read the password; either use the -S option\n", true},
		{"E: Unable to locate package kubelet\n", false},
	} {
		f := failureFrom(&runner.HostError{Host: "worker-0", Task: "Install the kubelet",
			Result: map[string]any{"rc": 1, "stderr": c.stderr, "stdout": ""}})
		if got := strings.Contains(f.err.Error(), "passwordless sudo") && strings.Contains(f.err.Error(), "sudo -n"); got != c.hint {
			t.Errorf("stderr %q: %v, want the hint: %v", c.stderr, f.err, c.hint)
		}
	}
}
