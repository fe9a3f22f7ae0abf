package sshconn_test

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

func TestHostKeys(t *testing.T) {
	srv := sshtest.NewServer(t)
	other := sshtest.NewServer(t) // its key stands in for a changed one
	changedLine := strings.Replace(other.HostKeyLine, other.Addr[strings.LastIndex(other.Addr, ":"):], srv.Addr[strings.LastIndex(srv.Addr, ":"):], 1)
	tests := []struct {
		name       string
		knownHosts string // file content; "-" means no file at all
		acceptNew  bool
		wantClass  sshconn.Class // 0: success
		wantInMsg  []string
		recorded   bool // the file now holds srv's key
	}{
		{name: "known key", knownHosts: srv.HostKeyLine + "\n"},
		{name: "unknown key refused", knownHosts: other.HostKeyLine + "\n", wantClass: sshconn.HostKey,
			wantInMsg: []string{srv.Addr, "--accept-new-host-keys", "ssh-keyscan"}},
		{name: "no known_hosts refused", knownHosts: "-", wantClass: sshconn.HostKey, wantInMsg: []string{"--accept-new-host-keys"}},
		{name: "unknown key accepted and recorded", knownHosts: other.HostKeyLine, acceptNew: true, recorded: true},
		{name: "missing file created", knownHosts: "-", acceptNew: true, recorded: true},
		{name: "changed key refused", knownHosts: changedLine + "\n", wantClass: sshconn.HostKey,
			wantInMsg: []string{"CHANGED", srv.Addr}},
		{name: "changed key refused even with accept-new", knownHosts: changedLine + "\n", acceptNew: true,
			wantClass: sshconn.HostKey, wantInMsg: []string{"CHANGED"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ssh", "known_hosts")
			if tt.knownHosts != "-" {
				os.MkdirAll(filepath.Dir(path), 0o700)
				os.WriteFile(path, []byte(tt.knownHosts), 0o600)
			}
			d := srv.Dialer()
			d.KnownHosts, d.AcceptNew = path, tt.acceptNew
			c, err := d.Dial(t.Context(), srv.Host("node-1"))
			if tt.wantClass == 0 {
				if err != nil {
					t.Fatalf("Dial: %v", err)
				}
				c.Close()
			} else {
				var e *sshconn.Error
				if !errors.As(err, &e) || e.Class != tt.wantClass || !errors.Is(err, fault.ErrUnreachable) {
					t.Fatalf("Dial error = %v, want class %v", err, tt.wantClass)
				}
				for _, s := range tt.wantInMsg {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
			}
			b, _ := os.ReadFile(path)
			if got := strings.Contains(string(b), srv.HostKeyLine); got != (tt.recorded || tt.name == "known key") {
				t.Errorf("known_hosts holds the key: %v, want %v:\n%s", got, !got, b)
			}
			if tt.recorded {
				if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
					t.Errorf("known_hosts mode %v, want 0600", fi.Mode().Perm())
				}
				// A second dial, now without AcceptNew, trusts the recorded key.
				d.AcceptNew = false
				c, err := d.Dial(t.Context(), srv.Host("node-1"))
				if err != nil {
					t.Fatalf("Dial after recording: %v", err)
				}
				c.Close()
			}
		})
	}
}

// Many hosts accepted at once append one well-formed line each.
func TestAcceptNewConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "known_hosts")
	var servers []*sshtest.Server
	for range 6 {
		servers = append(servers, sshtest.NewServer(t))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(servers))
	for _, srv := range servers {
		for range 2 { // twice each: the second must not add a duplicate
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := srv.Dialer()
				d.KnownHosts, d.AcceptNew = path, true
				c, err := d.Dial(t.Context(), srv.Host("node"))
				if err == nil {
					c.Close()
				}
				errs <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Dial: %v", err)
		}
	}
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != len(servers) {
		t.Errorf("known_hosts has %d lines, want %d:\n%s", len(lines), len(servers), b)
	}
	for _, srv := range servers {
		if !strings.Contains(string(b), srv.HostKeyLine+"\n") {
			t.Errorf("known_hosts lacks %s", srv.HostKeyLine)
		}
	}
}

// A known host whose key changed, let through because its checking is off
// (StrictHostKeyChecking=no), is not let through silently: a warning names the host, the key it
// presented and the key known_hosts records, as ssh prints it. A key that did not change warns
// nothing.
func TestChangedKeyLetThroughWarns(t *testing.T) {
	srv := sshtest.NewServer(t)
	other := sshtest.NewServer(t) // its key stands in for the old one
	changed := strings.Replace(other.HostKeyLine, other.Addr[strings.LastIndex(other.Addr, ":"):], srv.Addr[strings.LastIndex(srv.Addr, ":"):], 1)
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(kh, []byte(changed+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	d := srv.Dialer()
	d.Log = slog.New(slog.NewTextHandler(&logged, nil))
	h := srv.Host("controller-1")
	h.Vars["ansible_ssh_common_args"] = "-o StrictHostKeyChecking=no -o UserKnownHostsFile=" + kh
	c, err := d.Dial(t.Context(), h)
	if err != nil {
		t.Fatalf("Dial with StrictHostKeyChecking=no = %v, want it connected, as ssh does", err)
	}
	c.Close()
	out := logged.String()
	for _, want := range []string{"level=WARN", "REMOTE HOST IDENTIFICATION HAS CHANGED", "host=controller-1",
		ssh.FingerprintSHA256(srv.HostKey), ssh.FingerprintSHA256(other.HostKey), kh + ":1", "ssh-keygen -f " + kh + " -R"} {
		if !strings.Contains(out, want) {
			t.Errorf("warning lacks %q:\n%s", want, out)
		}
	}
	logged.Reset()
	if err := os.WriteFile(kh, []byte("# checked and recorded again\n"+srv.HostKeyLine+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = d.Dial(t.Context(), h)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if logged.Len() > 0 {
		t.Errorf("a key that did not change warned:\n%s", logged.String())
	}
}
