package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner/sshconn"
)

// runInProcess runs one client per host at once in this process and measures wall time and
// this process's CPU time (getrusage, self) over the run.
func runInProcess(ctx context.Context, hosts []*inventory.Host, one func(context.Context, *inventory.Host) error) measure {
	cpu0, start := selfCPU(), time.Now()
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Go(func() {
			if err := one(ctx, h); err != nil {
				errs[i] = fmt.Errorf("%s: %w", h.Name, err)
			}
		})
	}
	wg.Wait()
	return measure{Wall: time.Since(start), CPU: selfCPU() - cpu0, Err: errors.Join(errs...)}
}

// runBound runs the playbook's commands over sshconn's Client, one connection per host, no
// playbook machinery: kupgrade's transport alone.
func runBound(ctx context.Context, w *workspace, hosts []*inventory.Host, payload []byte) measure {
	d := &sshconn.Dialer{KnownHosts: w.KnownHosts}
	return runInProcess(ctx, hosts, func(ctx context.Context, h *inventory.Host) error {
		c, err := d.Dial(ctx, h)
		if err != nil {
			return err
		}
		defer c.Close()
		for range commandTasks {
			if err := exitOK(c.Run(ctx, "/bin/true", nil, nil, nil)); err != nil {
				return err
			}
		}
		if err := c.Upload(ctx, bytes.NewReader(payload), w.dest(h.Name), 0o644); err != nil {
			return err
		}
		return exitOK(c.Run(ctx, "stat -- "+w.dest(h.Name), nil, &bytes.Buffer{}, nil))
	})
}

func exitOK(exit int, err error) error {
	if err == nil && exit != 0 {
		err = fmt.Errorf("exit status %d", exit)
	}
	return err
}

// runBare does the same with x/crypto/ssh and pkg/sftp alone: a session per command, no
// cancellation machinery, sequential SFTP writes.
func runBare(ctx context.Context, w *workspace, hosts []*inventory.Host, payload []byte) measure {
	cfg, err := bareConfig(w)
	if err != nil {
		return measure{Err: err}
	}
	return runInProcess(ctx, hosts, func(ctx context.Context, h *inventory.Host) error {
		addr := net.JoinHostPort(h.Address(), strconv.Itoa(h.Port()))
		nc, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		cc, chans, reqs, err := ssh.NewClientConn(nc, addr, cfg)
		if err != nil {
			nc.Close()
			return err
		}
		cl := ssh.NewClient(cc, chans, reqs)
		defer cl.Close()
		for range commandTasks {
			if err := bareRun(cl, "/bin/true"); err != nil {
				return err
			}
		}
		if err := bareUpload(cl, payload, w.dest(h.Name)); err != nil {
			return err
		}
		return bareRun(cl, "stat -- "+w.dest(h.Name))
	})
}

func bareConfig(w *workspace) (*ssh.ClientConfig, error) {
	key, err := os.ReadFile(w.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("read key: %w", err)
	}
	signer, err := ssh.ParsePrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("parse key: %w", err)
	}
	check, err := knownhosts.New(w.KnownHosts)
	if err != nil {
		return nil, fmt.Errorf("read known_hosts: %w", err)
	}
	return &ssh.ClientConfig{User: currentUser(), Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: check, HostKeyAlgorithms: []string{ssh.KeyAlgoED25519}}, nil
}

func bareRun(cl *ssh.Client, cmd string) error {
	s, err := cl.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	s.Stdout = &bytes.Buffer{}
	return s.Run(cmd)
}

func bareUpload(cl *ssh.Client, data []byte, dest string) error {
	sc, err := sftp.NewClient(cl)
	if err != nil {
		return err
	}
	defer sc.Close()
	tmp := dest + ".tmp"
	f, err := sc.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.ReadFrom(bytes.NewReader(data)); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return sc.PosixRename(tmp, dest)
}
