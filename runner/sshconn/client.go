package sshconn

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// missedKeepalives is how many unanswered keepalive intervals make a connection dead, as
// OpenSSH's ServerAliveCountMax.
const missedKeepalives = 3

// Client is one SSH connection to a host (through its jump hosts), shared by every command and
// transfer until Close. It is safe for concurrent use.
type Client struct {
	host, addr string
	ssh        *ssh.Client
	chain      []*ssh.Client // every hop, the target's connection last

	sftpMu sync.Mutex
	sftp   *sftp.Client

	agents  agentSetup // how to start an agent
	agentMu sync.Mutex
	idle    []*agentSession // agent sessions waiting for a command
	noAgent bool            // the server's shell cannot run one: a session per command

	mu       sync.Mutex
	lost     error // why the connection ended, when it ended on its own
	closed   bool
	done     chan struct{}
	shutOnce sync.Once
}

func newClient(host, addr string, chain []*ssh.Client, keepalive time.Duration, agents agentSetup) *Client {
	c := &Client{host: host, addr: addr, ssh: chain[len(chain)-1], chain: chain, agents: agents.orDefaults(),
		done: make(chan struct{})}
	go func() {
		// Wait returns when the transport dies, for whatever reason.
		err := c.ssh.Wait()
		if err == nil {
			err = errors.New("closed by the server")
		}
		c.lose(err)
	}()
	if keepalive > 0 {
		go c.keepalive(keepalive)
	}
	return c
}

// keepalive sends keepalive@openssh.com every interval and drops the connection after
// missedKeepalives intervals without an answer: a peer that vanished without a reset would
// otherwise hang every Run until TCP gives up, many minutes later.
func (c *Client) keepalive(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	answered := make(chan struct{}, 1)
	pending, missed := false, 0
	for {
		select {
		case <-c.done:
			return
		case <-answered:
			pending, missed = false, 0
		case <-t.C:
			if pending {
				if missed++; missed >= missedKeepalives {
					c.lose(fmt.Errorf("no answer to keepalives for %s", time.Duration(missed+1)*every))
					return
				}
				continue
			}
			pending = true
			go func() {
				// Any reply counts, even a refusal (OpenSSH answers "failure").
				if _, _, err := c.ssh.SendRequest("keepalive@openssh.com", true, nil); err == nil {
					answered <- struct{}{}
				}
			}()
		}
	}
}

// lose records why the connection died (the first reason wins) and tears it down, which ends
// every session and transfer in progress.
func (c *Client) lose(err error) {
	c.mu.Lock()
	first := !c.closed && c.lost == nil
	if first {
		c.lost = err
	}
	c.mu.Unlock()
	if first {
		c.shutdown()
	}
}

func (c *Client) shutdown() {
	c.shutOnce.Do(func() {
		close(c.done)
		c.sftpMu.Lock()
		if c.sftp != nil {
			c.sftp.Close()
		}
		c.sftpMu.Unlock()
		closeChain(c.chain)
	})
}

// connErr explains an operation that failed with the connection: class Closed, with the
// reason the connection ended when it is known.
func (c *Client) connErr(op string, err error) error {
	c.mu.Lock()
	lost, closed := c.lost, c.closed
	c.mu.Unlock()
	switch {
	case closed:
		err = fmt.Errorf("client closed: %w", err)
	case lost != nil:
		err = lost
	}
	return &Error{Host: c.host, Addr: c.addr, Class: Closed, Err: fmt.Errorf("%s: %w", op, err)}
}

// Close ends the connection (and those to the jump hosts). Commands still running are
// signalled through their wrapper's watchdog, which notices the session is gone.
func (c *Client) Close() error {
	c.mu.Lock()
	already := c.closed
	c.closed = true
	c.mu.Unlock()
	if already {
		return nil
	}
	c.shutdown()
	return nil
}
