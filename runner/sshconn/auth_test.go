package sshconn_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

func TestDialFailures(t *testing.T) {
	srv := sshtest.NewServer(t)
	stranger := sshtest.NewServer(t) // its client key is not authorized on srv
	closedPort := func() string {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		defer ln.Close()
		return ln.Addr().String()
	}()
	silent, _ := net.Listen("tcp", "127.0.0.1:0") // accepts, never speaks
	t.Cleanup(func() { silent.Close() })
	tests := []struct {
		name      string
		vars      map[string]any
		wantClass sshconn.Class
		wantInMsg string
	}{
		{name: "key not authorized", vars: map[string]any{"ansible_ssh_private_key_file": stranger.KeyFile},
			wantClass: sshconn.Auth, wantInMsg: srv.Addr},
		{name: "key file missing", vars: map[string]any{"ansible_ssh_private_key_file": filepath.Join(t.TempDir(), "nope")},
			wantClass: sshconn.Auth, wantInMsg: "nope"},
		{name: "connection refused", vars: map[string]any{"ansible_port": port(closedPort)},
			wantClass: sshconn.Unreachable, wantInMsg: closedPort},
		{name: "server never answers", vars: map[string]any{"ansible_port": port(silent.Addr().String())},
			wantClass: sshconn.Timeout, wantInMsg: silent.Addr().String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := srv.Host("node-1")
			for k, v := range tt.vars {
				h.Vars[k] = v
			}
			d := srv.Dialer()
			d.ConnectTimeout = 500 * time.Millisecond
			_, err := d.Dial(t.Context(), h)
			var e *sshconn.Error
			if !errors.As(err, &e) || e.Class != tt.wantClass || !errors.Is(err, fault.ErrUnreachable) {
				t.Fatalf("Dial error = %v, want class %v", err, tt.wantClass)
			}
			if !strings.Contains(err.Error(), tt.wantInMsg) {
				t.Errorf("error %q does not mention %q", err, tt.wantInMsg)
			}
		})
	}
}

func port(addr string) int {
	_, p, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	return n
}

func TestEncryptedKey(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	keyFile := filepath.Join(t.TempDir(), "id_ed25519")
	block, err := ssh.MarshalPrivateKeyWithPassphrase(key, "", []byte("s3cret-pass"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600)
	srv := sshtest.NewServer(t, sshtest.WithClientKey(keyFile))
	tests := []struct {
		name      string
		pass      string
		wantClass sshconn.Class
	}{
		{name: "right passphrase", pass: "s3cret-pass"},
		{name: "wrong passphrase", pass: "wrong-pass", wantClass: sshconn.Auth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := 0
			d := srv.Dialer()
			d.Passphrase = func(string) ([]byte, error) { asked++; return []byte(tt.pass), nil }
			for range 2 { // a second host with the same key asks nothing more
				c, err := d.Dial(t.Context(), srv.Host("node"))
				if tt.wantClass == 0 && err != nil {
					t.Fatalf("Dial: %v", err)
				}
				if tt.wantClass != 0 && !sshconn.IsClass(err, tt.wantClass) {
					t.Fatalf("Dial error = %v, want class %v", err, tt.wantClass)
				}
				if err != nil && strings.Contains(err.Error(), tt.pass) {
					t.Errorf("error %q shows the passphrase", err)
				}
				if c != nil {
					c.Close()
				}
			}
			if asked != 1 {
				t.Errorf("passphrase asked %d times, want 1", asked)
			}
		})
	}
}

func TestPromptPassphraseFromEnv(t *testing.T) {
	t.Setenv(sshconn.PassphraseEnv, "from-env")
	got, err := sshconn.PromptPassphrase("key")
	if err != nil || string(got) != "from-env" {
		t.Errorf("PromptPassphrase = %q, %v; want from-env", got, err)
	}
}

func TestAgentAuth(t *testing.T) {
	srv := sshtest.NewServer(t)
	b, _ := os.ReadFile(srv.KeyFile)
	raw, err := ssh.ParseRawPrivateKey(b)
	if err != nil {
		t.Fatal(err)
	}
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: raw}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { agent.ServeAgent(keyring, c); c.Close() }() //nolint:errcheck // ends with the client
		}
	}()
	t.Setenv("SSH_AUTH_SOCK", sock)
	t.Setenv("HOME", t.TempDir()) // no default key files to fall back on
	h := srv.Host("node")
	delete(h.Vars, "ansible_ssh_private_key_file")
	otherKey := sshtest.NewServer(t).KeyFile // a key srv does not accept
	tests := []struct {
		name   string
		agent  bool
		args   string // ansible_ssh_common_args
		wantOK bool
	}{
		{name: "agent used", agent: true, wantOK: true},
		{name: "agent off", agent: false, wantOK: false},
		{name: "agent used besides a key file", agent: true, args: "-i " + otherKey, wantOK: true},
		// IdentitiesOnly: only the agent's keys that are among the key files may be offered.
		{name: "IdentitiesOnly hides other agent keys", agent: true, args: "-o IdentitiesOnly=yes -i " + otherKey, wantOK: false},
		{name: "IdentitiesOnly keeps the agent's copy of a key file", agent: true, args: "-o IdentitiesOnly=yes -i " + srv.KeyFile, wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := srv.Dialer()
			d.Agent = tt.agent
			h.Vars["ansible_ssh_common_args"] = tt.args
			c, err := d.Dial(t.Context(), h)
			if (err == nil) != tt.wantOK {
				t.Fatalf("Dial error = %v, want success %v", err, tt.wantOK)
			}
			if err != nil && !sshconn.IsClass(err, sshconn.Auth) {
				t.Errorf("Dial error = %v, want class Auth", err)
			}
			if c != nil {
				c.Close()
			}
		})
	}
}
