package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/ory/dockertest/v3"
	docker "github.com/ory/dockertest/v3/docker"
	"golang.org/x/crypto/ssh"
)

// Node is one lab node: a container with sshd published on 127.0.0.1:Port.
type Node struct {
	Name    string // controller-0, worker-0, ... (also the container's hostname)
	Role    string // "controller" or "worker"; "etcd" for a real lab's EtcdHost
	Port    int
	HostKey ssh.PublicKey // the ed25519 host key sshd presents
	Address string        // the node's address on the lab network (real labs)
	// PackageManager is AptManager or DnfManager (Options.PackageManager); "" on a real lab: apt.
	PackageManager string
	lab            *Lab
	res            *dockertest.Resource
	expire         time.Duration
}

// Addr is where the node's sshd answers.
func (n *Node) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.Port)) }

func (n *Node) container() string { return n.res.Container.ID }

func (n *Node) create(ctx context.Context, opts Options, image string, labels map[string]string) error {
	repo, tag, _ := strings.Cut(image, ":")
	n.expire = opts.Expire
	var err error
	// The port is picked before the container starts; another process may take it meanwhile.
	for range 3 {
		if n.Port, err = freePort(); err != nil {
			return err
		}
		n.res, err = n.lab.pool.RunWithOptions(&dockertest.RunOptions{
			Name: n.lab.Name + "-" + n.Name, Hostname: n.Name, Repository: repo, Tag: tag,
			Cmd:    []string{"/usr/local/sbin/kupgrade-lab-entrypoint"},
			Labels: labels, NetworkID: n.lab.netID,
			Env: []string{
				"LAB_ROLE=" + n.Role, "LAB_VERSION=" + opts.FromVersion,
				"LAB_KUBEADM_VERSION=" + opts.KubeadmVersion, "LAB_PKG_MGR=" + opts.PackageManager,
				"LAB_AUTHORIZED_KEY=" + n.lab.keys.authorized,
			},
			Mounts:       []string{n.lab.Name + "-shared:" + sharedPath},
			ExposedPorts: []string{"22/tcp"},
			PortBindings: map[docker.Port][]docker.PortBinding{
				"22/tcp": {{HostIP: "127.0.0.1", HostPort: strconv.Itoa(n.Port)}},
			},
		}, func(hc *docker.HostConfig) { hc.PublishAllPorts = false })
		if err == nil {
			break
		}
		_ = n.lab.pool.RemoveContainerByName(n.lab.Name + "-" + n.Name)
		if !strings.Contains(err.Error(), "allocated") && !strings.Contains(err.Error(), "in use") {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("start node %s: %w", n.Name, err)
	}
	n.setExpiry()
	return n.waitReady(ctx)
}

// setExpiry makes Docker stop the container after the lab's expiry even if this process dies
// (the stop request is served by the daemon; PID 1 ignores the stop signal, so Docker waits the
// full timeout before killing it).
func (n *Node) setExpiry() {
	if n.expire > 0 {
		_ = n.res.Expire(uint(n.expire.Seconds()))
	}
}

// waitReady waits until sshd accepts the lab's key as sysadmin, shows the node's host key and
// lets sysadmin sudo without a password. On a busy machine a node's first start can take a
// minute; readyWithin is far above that and still ends a node that never comes up.
func (n *Node) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyWithin)
	defer cancel()
	var last error
	for {
		if last = n.trySSH(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for sshd on %s (%s): %w", n.Name, n.Addr(), last)
		case <-time.After(150 * time.Millisecond):
		}
	}
}

const readyWithin = 3 * time.Minute

func (n *Node) trySSH(ctx context.Context) error {
	if n.HostKey == nil {
		out, err := n.Exec(ctx, "cat", "/etc/ssh/ssh_host_ed25519_key.pub")
		if err != nil {
			return err
		}
		key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(out))
		if err != nil {
			return fmt.Errorf("parse host key: %w", err)
		}
		n.HostKey = key
	}
	client, err := n.Dial(ctx)
	if err != nil {
		return err
	}
	defer client.Close()
	s, err := client.NewSession()
	if err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	defer s.Close()
	if out, err := s.CombinedOutput("sudo -n true"); err != nil {
		return fmt.Errorf("sudo -n true: %w: %s", err, out)
	}
	return nil
}

// Dial opens an SSH connection to the node as sysadmin with the lab's key, verifying the host
// key. For tests of the lab itself; kupgrade dials through its own runner.
func (n *Node) Dial(ctx context.Context) (*ssh.Client, error) {
	cfg := &ssh.ClientConfig{
		User:            "sysadmin",
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(n.lab.keys.signer)},
		HostKeyCallback: ssh.FixedHostKey(n.HostKey),
		Timeout:         5 * time.Second,
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", n.Addr())
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", n.Name, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	c, chans, reqs, err := ssh.NewClientConn(conn, n.Addr(), cfg)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("ssh handshake with %s: %w", n.Name, err)
	}
	_ = conn.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

// Exec runs cmd in the node's container (docker exec, as root, no SSH) and returns its stdout.
// A non-zero exit is an error wrapping *ExitError.
func (n *Node) Exec(ctx context.Context, cmd ...string) (string, error) {
	return execIn(ctx, n.lab.pool.Client, n.container(), nil, cmd...)
}

// ExecInput is Exec with stdin as the command's standard input, as `docker exec -i` gives it.
func (n *Node) ExecInput(ctx context.Context, stdin io.Reader, cmd ...string) (string, error) {
	return execIn(ctx, n.lab.pool.Client, n.container(), stdin, cmd...)
}

// Stop kills the node's container at once, as a power cut would. Its disk stays.
func (n *Node) Stop(ctx context.Context) error {
	if err := n.lab.pool.Client.StopContainerWithContext(n.container(), 0, ctx); err != nil {
		var notRunning *docker.ContainerNotRunning
		if !errors.As(err, &notRunning) {
			return fmt.Errorf("stop %s: %w", n.Name, err)
		}
	}
	return nil
}

// Start starts a stopped node again (same disk, port and host key) and waits for sshd.
func (n *Node) Start(ctx context.Context) error {
	if err := n.lab.pool.Client.StartContainerWithContext(n.container(), nil, ctx); err != nil {
		var already *docker.ContainerAlreadyRunning
		if !errors.As(err, &already) {
			return fmt.Errorf("start %s: %w", n.Name, err)
		}
	}
	n.setExpiry()
	return n.waitReady(ctx)
}

// CutNetwork disconnects the node from the lab network: SSH connections to it hang and new ones
// fail, while the node itself keeps running.
func (n *Node) CutNetwork(ctx context.Context) error {
	err := n.lab.pool.Client.DisconnectNetwork(n.lab.netID, docker.NetworkConnectionOptions{
		Container: n.container(), Force: true, Context: ctx,
	})
	if err != nil {
		return fmt.Errorf("cut network of %s: %w", n.Name, err)
	}
	return nil
}

// RestoreNetwork reconnects the node after CutNetwork and waits for sshd to answer again.
func (n *Node) RestoreNetwork(ctx context.Context) error {
	err := n.lab.pool.Client.ConnectNetwork(n.lab.netID, docker.NetworkConnectionOptions{
		Container: n.container(), Context: ctx,
	})
	if err != nil {
		return fmt.Errorf("restore network of %s: %w", n.Name, err)
	}
	return n.waitReady(ctx)
}
