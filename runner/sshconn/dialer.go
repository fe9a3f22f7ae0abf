package sshconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/kupgrade/kupgrade/inventory"
)

const (
	defaultConnectTimeout = 10 * time.Second
	defaultKeepalive      = 15 * time.Second
)

// Dialer opens SSH connections to inventory hosts. Use one Dialer (by pointer) for a whole run:
// it remembers decrypted keys so a passphrase is asked once.
type Dialer struct {
	// KnownHosts is the known_hosts to verify against (and append to), unless the host's ssh args
	// name a UserKnownHostsFile; "" leaves it to ssh_config, else ~/.ssh/known_hosts.
	KnownHosts     string
	AcceptNew      bool          // trust and record unknown keys (StrictHostKeyChecking=accept-new), unless the host's ssh args say otherwise
	ConnectTimeout time.Duration // per hop, TCP connect plus handshake; default 10s
	Keepalive      time.Duration // keepalive@openssh.com interval; default 15s, negative disables
	Agent          bool          // use SSH_AUTH_SOCK when set
	// Passphrase returns the passphrase of an encrypted key file; nil means PromptPassphrase.
	Passphrase func(keyFile string) ([]byte, error)
	// SSHConfig is the ssh_config to read (Host, HostName, User, Port, IdentityFile,
	// IdentitiesOnly, ProxyJump, ProxyCommand, UserKnownHostsFile, StrictHostKeyChecking);
	// "" is ~/.ssh/config when present, NoSSHConfig none. A host's `-F FILE` wins.
	SSHConfig string
	// Log receives the warnings ssh prints and lets pass: a known host whose key changed, let
	// through because its checking is off (StrictHostKeyChecking=no). nil is slog.Default().
	Log *slog.Logger

	keys       keyCache
	configs    configCache
	knownHosts knownHostsCache
	agents     agentSetup // how clients start kupgrade agents (agentScript); zero means the defaults
}

// Dial connects to h, through its jump hosts if any, and starts keepalives. The connection is
// reused by everything done with the returned Client until Close.
func (d *Dialer) Dial(ctx context.Context, h *inventory.Host) (*Client, error) {
	t, err := d.targetOf(h)
	if err != nil {
		return nil, err
	}
	return d.dial(ctx, t)
}

func (d *Dialer) dial(ctx context.Context, t target) (*Client, error) {
	var chain []*ssh.Client
	for _, hp := range t.hops {
		var via *ssh.Client
		if len(chain) > 0 {
			via = chain[len(chain)-1]
		}
		c, err := d.hop(ctx, t, via, hp)
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
func (d *Dialer) hop(ctx context.Context, t target, via *ssh.Client, hp hop) (*ssh.Client, error) {
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
	keys := hp.hostKeys
	known, err := keys.known(hp.addr)
	if err != nil {
		return nil, &Error{Host: t.name, Addr: hp.addr, Class: HostKey, Err: err}
	}
	auth, agentConn, err := d.authMethods(hp.keys)
	if agentConn != nil {
		defer agentConn.Close()
	}
	if err != nil {
		return nil, &Error{Host: t.name, Addr: hp.addr, Class: Auth, Err: err}
	}
	var conn net.Conn
	switch {
	case via != nil:
		conn, err = via.DialContext(hopCtx, "tcp", hp.addr)
	case hp.proxyCommand != "":
		conn, err = dialCommand(hp.proxyCommand, hp.addr)
	default:
		conn, err = (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext(hopCtx, "tcp", hp.addr)
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
