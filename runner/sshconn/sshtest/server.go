package sshtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner/sshconn"
)

// Server is an SSH server for one test.
type Server struct {
	Addr        string        // "127.0.0.1:PORT"
	Port        int           //
	User        string        // the login Host and Dialer use
	Dir         string        // a scratch folder on the server; in-process commands start in it
	KeyFile     string        // the client's private key (unencrypted ed25519), accepted by the server
	KnownHosts  string        // a known_hosts file pinning HostKey for Addr
	HostKeyLine string        // the known_hosts line of this server
	HostKey     ssh.PublicKey // the server's host key

	// in-process server only
	ln       net.Listener
	cfg      *ssh.ServerConfig
	conns    atomic.Int64
	sessions atomic.Int64
	freeze   *gate
	mu       sync.Mutex
	open     []net.Conn
	procs    map[int]bool // process groups started, killed at cleanup

	// OpenSSH only
	sshd *os.Process
	wg   sync.WaitGroup
}

// Option changes how a server is set up.
type Option func(*options)

type options struct {
	clientKey  string
	knownHosts string
	hostKey    ed25519.PrivateKey
}

// WithClientKey makes the server accept the private key at path (another server's KeyFile)
// instead of generating a new client key.
func WithClientKey(path string) Option { return func(o *options) { o.clientKey = path } }

// WithKnownHosts records the server's host key in the known_hosts file at path (for example
// another server's KnownHosts, so one Dialer trusts both) instead of a new file.
func WithKnownHosts(path string) Option { return func(o *options) { o.knownHosts = path } }

// WithHostKey uses key as the host key, so a restarted server keeps its identity, or a test
// can play a server whose key changed.
func WithHostKey(key ed25519.PrivateKey) Option { return func(o *options) { o.hostKey = key } }

// NewHostKey returns a fresh ed25519 host key for WithHostKey.
func NewHostKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("generate host key: %v", err)
	}
	return k
}

// setupKeys fills in the keys and files both kinds of server share.
func (s *Server) setupKeys(t testing.TB, o *options) ssh.Signer {
	t.Helper()
	dir := t.TempDir()
	if o.hostKey == nil {
		o.hostKey = NewHostKey(t)
	}
	hostSigner, err := ssh.NewSignerFromKey(o.hostKey)
	if err != nil {
		t.Fatalf("host key: %v", err)
	}
	s.HostKey = hostSigner.PublicKey()
	s.HostKeyLine = knownhosts.Line([]string{knownhosts.Normalize(s.Addr)}, s.HostKey)
	s.KnownHosts = o.knownHosts
	if s.KnownHosts == "" {
		s.KnownHosts = filepath.Join(dir, "known_hosts")
	}
	appendLine(t, s.KnownHosts, s.HostKeyLine)
	s.KeyFile = o.clientKey
	if s.KeyFile == "" {
		s.KeyFile = filepath.Join(dir, "id_ed25519")
		writePrivateKey(t, s.KeyFile, NewHostKey(t))
	}
	return hostSigner
}

// clientKey returns the public half of KeyFile.
func (s *Server) clientKey(t testing.TB) ssh.PublicKey {
	t.Helper()
	b, err := os.ReadFile(s.KeyFile)
	if err != nil {
		t.Fatalf("read client key: %v", err)
	}
	signer, err := ssh.ParsePrivateKey(b)
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing) && missing.PublicKey != nil:
		return missing.PublicKey // an encrypted key: its public half is stored in clear
	case err != nil:
		t.Fatalf("parse client key: %v", err)
	}
	return signer.PublicKey()
}

func writePrivateKey(t testing.TB, path string, key ed25519.PrivateKey) {
	t.Helper()
	block, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		t.Fatalf("marshal key: %v", err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatalf("write key: %v", err)
	}
}

func appendLine(t testing.TB, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, line); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
}

// Host returns an inventory host that connects to this server as User with KeyFile.
func (s *Server) Host(name string) *inventory.Host {
	return &inventory.Host{Name: name, Groups: []string{"all"}, Vars: map[string]any{
		"ansible_host":                 "127.0.0.1",
		"ansible_port":                 s.Port,
		"ansible_user":                 s.User,
		"ansible_ssh_private_key_file": s.KeyFile,
	}}
}

// HostVia returns Host(name) reached through the given jump hosts, in order. The jump servers
// must accept KeyFile and be in KnownHosts (WithClientKey, WithKnownHosts).
func (s *Server) HostVia(name string, jumps ...*Server) *inventory.Host {
	h := s.Host(name)
	specs := make([]string, len(jumps))
	for i, j := range jumps {
		specs[i] = j.User + "@" + j.Addr
	}
	h.Vars["ansible_ssh_common_args"] = "-o ProxyJump=" + strings.Join(specs, ",")
	return h
}

// Dialer returns a dialer that trusts exactly KnownHosts and uses no ssh-agent and no ssh_config.
func (s *Server) Dialer() *sshconn.Dialer {
	return &sshconn.Dialer{
		KnownHosts:     s.KnownHosts,
		SSHConfig:      sshconn.NoSSHConfig,
		ConnectTimeout: 10 * time.Second,
		Passphrase: func(keyFile string) ([]byte, error) {
			return nil, fmt.Errorf("sshtest: no passphrase for %s", keyFile)
		},
	}
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer ln.Close()
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	n, _ := strconv.Atoi(p)
	return n
}
