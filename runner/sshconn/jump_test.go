package sshconn_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

func TestJumpHosts(t *testing.T) {
	target := sshtest.NewServer(t)
	jump1 := sshtest.NewServer(t, sshtest.WithClientKey(target.KeyFile), sshtest.WithKnownHosts(target.KnownHosts))
	jump2 := sshtest.NewServer(t, sshtest.WithClientKey(target.KeyFile), sshtest.WithKnownHosts(target.KnownHosts))
	tests := []struct {
		name  string
		jumps []*sshtest.Server
	}{
		{name: "one jump", jumps: []*sshtest.Server{jump1}},
		{name: "two jumps", jumps: []*sshtest.Server{jump1, jump2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := target.Connections()
			c, err := target.Dialer().Dial(t.Context(), target.HostVia("node", tt.jumps...))
			if err != nil {
				t.Fatalf("Dial: %v", err)
			}
			defer c.Close()
			for range 3 { // the connection is reused
				var out bytes.Buffer
				if exit, err := c.Run(t.Context(), "pwd", nil, &out, nil); err != nil || exit != 0 {
					t.Fatalf("Run = %d, %v", exit, err)
				}
				if strings.TrimSpace(out.String()) != target.Dir {
					t.Fatalf("command ran in %q, want the target's %q", out.String(), target.Dir)
				}
			}
			if got := target.Connections() - before; got != 1 {
				t.Errorf("target saw %d connections, want 1", got)
			}
		})
	}
}

func TestJumpHostKeyChecked(t *testing.T) {
	target := sshtest.NewServer(t)
	// The jump host's key is not in the target's known_hosts.
	jump := sshtest.NewServer(t, sshtest.WithClientKey(target.KeyFile))
	_, err := target.Dialer().Dial(t.Context(), target.HostVia("node", jump))
	if !sshconn.IsClass(err, sshconn.HostKey) || !strings.Contains(err.Error(), jump.Addr) {
		t.Fatalf("Dial error = %v, want a HostKey error naming %s", err, jump.Addr)
	}
}

func TestKeepaliveDetectsDeadServer(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			srv := k.start(t)
			d := srv.Dialer()
			d.Keepalive = 100 * time.Millisecond
			c, err := d.Dial(t.Context(), srv.Host("node"))
			if err != nil {
				t.Fatalf("Dial: %v", err)
			}
			defer c.Close()
			// Keepalives that are answered keep a quiet command alive.
			if exit, err := c.Run(t.Context(), "sleep 1", nil, nil, nil); err != nil || exit != 0 {
				t.Fatalf("Run = %d, %v", exit, err)
			}
			pidFile := srv.Dir + "/frozen.pid"
			done := make(chan error, 1)
			out := &runnertest.Buffer{}
			go func() {
				_, err := c.Run(t.Context(), "echo $$ > "+pidFile+"; echo started; exec sleep 1000", nil, out, nil)
				done <- err
			}()
			waitFor(t, "the command to start", func() bool { return strings.Contains(out.String(), "started") })
			srv.Freeze()
			err = <-done
			srv.Thaw()
			if !sshconn.IsClass(err, sshconn.Closed) || !strings.Contains(err.Error(), "keepalive") {
				t.Fatalf("Run on a frozen server = %v, want a Closed error about keepalives", err)
			}
			if _, err := c.Run(t.Context(), "true", nil, nil, nil); !sshconn.IsClass(err, sshconn.Closed) {
				t.Errorf("Run after the loss = %v, want class Closed", err)
			}
			if b, err := os.ReadFile(pidFile); err == nil {
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				waitFor(t, "the command on the thawed server to be killed", func() bool { return !alive(pid) })
			}
		})
	}
}
