package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
)

// An unreachable host is named once in its error, however many layers wrap the cause.
func TestUnreachableNamesHostOnce(t *testing.T) {
	h := &inventory.Host{Name: "controller-0", Vars: map[string]any{"ansible_host": "10.0.0.5"}}
	sshErr := errors.New("ssh controller-0 (10.0.0.5:22): unreachable: dial tcp 10.0.0.5:22: connect: connection refused")
	err := &HostError{Host: h.Name, Err: &UnreachableError{Host: h.Name, Err: dialError(h, sshErr)}}
	if got := strings.Count(err.Error(), "controller-0"); got != 1 {
		t.Errorf("%q names the host %d times, want 1", err, got)
	}
	// A cause that does not name the host or its address gets both.
	bare := &HostError{Host: h.Name, Err: &UnreachableError{Host: h.Name, Err: dialError(h, errors.New("connection refused"))}}
	if want := "controller-0 unreachable: dial 10.0.0.5: connection refused"; bare.Error() != want {
		t.Errorf("got %q, want %q", bare, want)
	}
}

func TestNamesHostWholeWord(t *testing.T) {
	for _, tc := range []struct {
		msg, host string
		want      bool
	}{
		{"ssh controller-1 (a:22): refused", "controller-1", true},
		{"ssh controller-10 (a:22): refused", "controller-1", false},
		{"host w.lab unreachable", "w.lab", true},
		{"xw-0", "w-0", false},
		{"w-0", "w-0", true},
		{"anything", "", false},
	} {
		if got := namesHost(tc.msg, tc.host); got != tc.want {
			t.Errorf("namesHost(%q, %q) = %v, want %v", tc.msg, tc.host, got, tc.want)
		}
	}
}
