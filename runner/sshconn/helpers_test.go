package sshconn_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// kinds are the servers the transport must behave the same against.
var kinds = []struct {
	name  string
	start func(testing.TB, ...sshtest.Option) *sshtest.Server
}{
	{"inprocess", sshtest.NewServer},
	{"openssh", sshtest.NewOpenSSH},
}

// eachMode runs f against each kind of server in each agent mode (sshconn.AgentModes); f dials
// with mode.
func eachMode(t *testing.T, f func(t *testing.T, srv *sshtest.Server, mode sshconn.DialOption)) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			srv := k.start(t)
			for _, mode := range sshconn.AgentModes {
				t.Run(mode, func(t *testing.T) {
					f(t, srv, sshconn.AgentMode(t, mode))
				})
			}
		})
	}
}

// dial connects to srv with a Dialer set by opts and closes the client at the end of the test.
func dial(t *testing.T, srv *sshtest.Server, opts ...sshconn.DialOption) *sshconn.Client {
	t.Helper()
	d := srv.Dialer()
	for _, o := range opts {
		o(d)
	}
	c, err := d.Dial(t.Context(), srv.Host("node-1"))
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitFor polls cond for up to a generous bound; it is a liveness check, not a timing one.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// alive reports whether pid runs (a zombie waiting for a reaper counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses, which may itself hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// pids reads the process ids a remote command wrote, one per line.
func pids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read pids: %v", err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid %q: %v", f, err)
		}
		out = append(out, n)
	}
	return out
}
