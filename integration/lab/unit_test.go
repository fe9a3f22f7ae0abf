//go:build integration

package lab

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMirrorFromSources(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, deb822, list, want string
	}{
		{name: "deb822 main archive before security",
			deb822: "Types: deb\n# comment\nURIs: http://mirror.example/debian/\nSuites: bookworm bookworm-updates\nComponents: main\n\n" +
				"Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n",
			want: "http://mirror.example/debian"},
		{name: "deb822 security only", deb822: "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n"},
		{name: "deb822 disabled", deb822: "Types: deb\nEnabled: no\nURIs: http://mirror.example/debian\nSuites: bookworm\n"},
		{name: "deb822 source only", deb822: "Types: deb-src\nURIs: http://mirror.example/debian\nSuites: bookworm\n"},
		{name: "list with options", list: "# x\ndeb-src http://a.example/debian bookworm main\ndeb [arch=amd64 signed-by=/k.gpg] https://b.example/debian bookworm main\n",
			want: "https://b.example/debian"},
		{name: "list skips updates", list: "deb http://a.example/debian bookworm-updates main\ndeb http://c.example/debian bookworm main\n",
			want: "http://c.example/debian"},
		{name: "list skips cdrom", list: "deb cdrom:[Debian]/ bookworm main\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mirrorFromDeb822(tt.deb822)
			if tt.list != "" {
				got = mirrorFromList(tt.list)
			}
			if got != tt.want {
				t.Errorf("mirror = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFaultFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fault   Fault
		want    string
		invalid string
	}{
		{name: "seed", fault: Fault{Phase: "kubelet-config", Action: Exit, Status: 1, Once: true},
			want: "after=kubelet-config\naction=exit\nstatus=1\nonce=true\n"},
		{name: "in preflight, default status", fault: Fault{Phase: "preflight", Before: true, Action: Exit},
			want: "in=preflight\naction=exit\nstatus=1\nonce=false\n"},
		{name: "hang", fault: Fault{Phase: "control-plane", Action: Hang},
			want: "after=control-plane\naction=hang\nstatus=1\nonce=false\n"},
		{name: "delay", fault: Fault{Phase: "control-plane", Action: Delay, Seconds: 25, Once: true},
			want: "after=control-plane\naction=delay\nstatus=1\nseconds=25\nonce=true\n"},
		{name: "a named preflight check", fault: Fault{Phase: "preflight", Before: true, Action: Exit, Check: "CreateJob", Once: true},
			want: "in=preflight\naction=exit\nstatus=1\ncheck=CreateJob\nonce=true\n"},
		{name: "a stale node status", fault: Fault{Phase: PhaseKubeletStatus, Before: true, Action: Stale},
			want: "in=kubelet-status\naction=stale\nstatus=1\nonce=false\n"},
		{name: "stale elsewhere", fault: Fault{Phase: "addon", Action: Stale}, invalid: "stale"},
		{name: "an exit of the node status", fault: Fault{Phase: PhaseKubeletStatus, Action: Exit}, invalid: "stale"},
		{name: "a check outside preflight", fault: Fault{Phase: "addon", Action: Exit, Check: "CreateJob"}, invalid: "check"},
		{name: "unknown phase", fault: Fault{Phase: "kubelet", Action: Exit}, invalid: "phase"},
		{name: "unknown action", fault: Fault{Phase: "addon", Action: "crash"}, invalid: "action"},
		{name: "status too big", fault: Fault{Phase: "addon", Action: Exit, Status: 256}, invalid: "status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.fault.Validate()
			if tt.invalid != "" {
				if err == nil || !strings.Contains(err.Error(), tt.invalid) {
					t.Fatalf("Validate() = %v, want an error about %s", err, tt.invalid)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			if got := tt.fault.String(); got != tt.want {
				t.Errorf("fault file:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// A second taker of the image lock waits for the first: two test processes never build at once.
func TestLockFileSerialises(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lock")
	unlock, err := lockFile(t.Context(), path, nopWriter{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 600*time.Millisecond)
	defer cancel()
	if _, err := lockFile(ctx, path, nopWriter{}); err == nil {
		t.Fatal("second lock taken while the first is held")
	}
	unlock()
	unlock2, err := lockFile(t.Context(), path, nopWriter{})
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	unlock2()
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
