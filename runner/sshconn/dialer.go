package sshconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/inventory"
)

const (
	defaultConnectTimeout = 10 * time.Second
	defaultKeepalive      = 15 * time.Second
)

// Dialer opens SSH connections to inventory hosts. Use one Dialer (by pointer) for a whole run:
// it remembers decrypted keys so a passphrase is asked once.
type Dialer struct {
	KnownHosts     string        // path of known_hosts to verify against (and append to); default ~/.ssh/known_hosts
	AcceptNew      bool          // trust and record unknown keys; a changed key is always refused
	ConnectTimeout time.Duration // per hop, TCP connect plus handshake; default 10s
	Keepalive      time.Duration // keepalive@openssh.com interval; default 15s, negative disables
	Agent          bool          // use SSH_AUTH_SOCK when set
	// Passphrase returns the passphrase of an encrypted key file; nil means PromptPassphrase.
	Passphrase func(keyFile string) ([]byte, error)

	keys   keyCache
	agents agentSetup // how clients start kupgrade agents (agentScript); zero means the defaults
}

// hop is one SSH server on the way: each jump host, then the target.
type hop struct {
	user, addr string
}

// target is everything Dial needs from an inventory host.
type target struct {
	name    string
	keyFile string
	hops    []hop // jump hosts first, the host itself last
}

func targetOf(h *inventory.Host) (target, error) {
	u := h.User()
	if u == "" {
		u = localUser()
	}
	t := target{name: h.Name, keyFile: h.KeyFile()}
	for _, j := range h.ProxyJump() {
		hp, err := parseJump(j, u)
		if err != nil {
			return target{}, fault.Mark(fmt.Errorf("host %s: ProxyJump %q: %w", h.Name, j, err), fault.ErrBadInput)
		}
		t.hops = append(t.hops, hp)
	}
	t.hops = append(t.hops, hop{user: u, addr: net.JoinHostPort(h.Address(), strconv.Itoa(h.Port()))})
	return t, nil
}

// parseJump reads `[user@]host[:port]`; a jump host without a user logs in as the host's user.
func parseJump(spec, defaultUser string) (hop, error) {
	u := defaultUser
	if i := strings.LastIndex(spec, "@"); i >= 0 {
		u, spec = spec[:i], spec[i+1:]
	}
	host, port := spec, "22"
	if h, p, err := net.SplitHostPort(spec); err == nil {
		host, port = h, p
	} else if strings.HasPrefix(spec, "[") && strings.HasSuffix(spec, "]") {
		host = spec[1 : len(spec)-1]
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return hop{}, fmt.Errorf("port %q is not between 1 and 65535", port)
	}
	if host == "" || u == "" || strings.ContainsAny(host, " /") {
		return hop{}, errors.New("want user@host:port")
	}
	return hop{user: u, addr: net.JoinHostPort(host, port)}, nil
}

func localUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

// Dial connects to h, through its jump hosts if any, and starts keepalives. The connection is
// reused by everything done with the returned Client until Close.
func (d *Dialer) Dial(ctx context.Context, h *inventory.Host) (*Client, error) {
	t, err := targetOf(h)
	if err != nil {
		return nil, err
	}
	return d.dial(ctx, t)
}

func (d *Dialer) dial(ctx context.Context, t target) (*Client, error) {
	keys := hostKeys{path: d.KnownHosts, acceptNew: d.AcceptNew}
	if keys.path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("find known_hosts: %w", err)
		}
		keys.path = filepath.Join(home, ".ssh", "known_hosts")
	}
	var chain []*ssh.Client
	for _, hp := range t.hops {
		var via *ssh.Client
		if len(chain) > 0 {
			via = chain[len(chain)-1]
		}
		c, err := d.hop(ctx, t, keys, via, hp)
		if err != nil {
			closeChain(chain)
			return nil, err
		}
		chain = append(chain, c)
	}
	keepalive := d.Keepalive
	if keepalive == 0 {
		keepalive = defaultKeepalive
	}
	return newClient(t.name, t.hops[len(t.hops)-1].addr, chain, keepalive, d.agents), nil
}

// hop opens one SSH connection, over via when it is a jump host, within ConnectTimeout.
func (d *Dialer) hop(ctx context.Context, t target, keys hostKeys, via *ssh.Client, hp hop) (*ssh.Client, error) {
	timeout := d.ConnectTimeout
	if timeout <= 0 {
		timeout = defaultConnectTimeout
	}
	hopCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(err error) error {
		if errors.Is(ctx.Err(), context.Canceled) {
			return fmt.Errorf("connect to %s (%s): %w", t.name, hp.addr, cause(ctx))
		}
		return classify(t.name, hp.addr, err, hopCtx.Err() != nil)
	}
	known, err := keys.known(hp.addr)
	if err != nil {
		return nil, &Error{Host: t.name, Addr: hp.addr, Class: HostKey, Err: err}
	}
	auth, agentConn, err := d.authMethods(t.keyFile)
	if agentConn != nil {
		defer agentConn.Close()
	}
	if err != nil {
		return nil, &Error{Host: t.name, Addr: hp.addr, Class: Auth, Err: err}
	}
	var conn net.Conn
	if via == nil {
		conn, err = (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext(hopCtx, "tcp", hp.addr)
	} else {
		conn, err = via.DialContext(hopCtx, "tcp", hp.addr)
	}
	if err != nil {
		return nil, fail(err)
	}
	// NewClientConn knows no context: closing the connection is what ends a stuck handshake.
	stop := context.AfterFunc(hopCtx, func() { conn.Close() })
	cfg := &ssh.ClientConfig{
		User:              hp.user,
		Auth:              auth,
		HostKeyCallback:   keys.callback(t.name),
		HostKeyAlgorithms: algorithms(known),
	}
	sc, chans, reqs, err := ssh.NewClientConn(conn, hp.addr, cfg)
	if !stop() {
		if err == nil {
			sc.Close()
			err = hopCtx.Err()
		}
		return nil, fail(err)
	}
	if err != nil {
		conn.Close()
		return nil, fail(err)
	}
	return ssh.NewClient(sc, chans, reqs), nil
}

func closeChain(chain []*ssh.Client) {
	for i := len(chain) - 1; i >= 0; i-- {
		chain[i].Close()
	}
}
