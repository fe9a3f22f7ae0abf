package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/ory/dockertest/v3"
	docker "github.com/ory/dockertest/v3/docker"
	"golang.org/x/crypto/ssh"
)

// The real lab's external etcd: one host, EtcdHostName, in the inventory's etcd group only (no
// Kubernetes node), reached over SSH as kupgrade reaches a site's external etcd. It runs the
// node image with LAB_ROLE=etcd: Debian's etcd-server as its unit (the systemctl stand-in),
// configured in /etc/default/etcd, and sshd; no containerd, no kubelet. Clients reach it over
// plain HTTP on the lab's network, advertised as etcdClientURL.
const (
	EtcdHostName = "etcd-0"
	// EtcdGroup is the inventory group naming the external etcd's members.
	EtcdGroup     = "etcd"
	etcdAlias     = "etcd" // the host's name on the lab network, besides EtcdHostName
	etcdClientURL = "http://" + etcdAlias + ":2379"
)

// startEtcd starts the external etcd host and waits until it accepts the lab's key over SSH
// and etcd answers there.
func (l *Lab) startEtcd(ctx context.Context, labels map[string]string) error {
	n := &Node{Name: EtcdHostName, Role: EtcdGroup, lab: l}
	var err error
	if n.Port, err = freePort(); err != nil {
		return err
	}
	flags := []string{"-p", fmt.Sprintf("127.0.0.1:%d:22", n.Port), "--network-alias", etcdAlias,
		"--tmpfs", "/run", "--tmpfs", "/tmp", "-e", "LAB_ROLE=" + EtcdGroup,
		"-e", "LAB_ETCD_CLIENT_URL=" + etcdClientURL, "-e", "LAB_AUTHORIZED_KEY=" + l.keys.authorized}
	id, err := dockerRun(ctx, l.Name+"-"+n.Name, n.Name, l.Name, labels, flags, l.real.build.NodeImage)
	if err != nil {
		return fmt.Errorf("start the etcd host %s: %w", n.Name, err)
	}
	n.res = &dockertest.Resource{Container: &docker.Container{ID: id}}
	if n.Address, err = l.containerIP(id); err != nil {
		return err
	}
	if err := n.waitReady(ctx); err != nil {
		return err
	}
	if err := n.waitFor(ctx, time.Minute, "etcdctl", "--endpoints="+etcdClientURL, "endpoint", "health"); err != nil {
		return fmt.Errorf("etcd on %s: %w", n.Name, err)
	}
	l.real.etcd = n
	return nil
}

// EtcdHost is the real lab's external etcd host, a host of the inventory's etcd group and no
// Kubernetes node (not among Nodes); nil in a simulated lab.
func (l *Lab) EtcdHost() *Node {
	if l.real == nil {
		return nil
	}
	return l.real.etcd
}

// etcdFiles are the external etcd host's line of known_hosts and the inventory's etcd group
// ("" and "" in a simulated lab).
func (l *Lab) etcdFiles() (knownHost, group string) {
	n := l.EtcdHost()
	if n == nil {
		return "", ""
	}
	return knownHostLine(n), "    " + EtcdGroup + ":\n      hosts:\n" + inventoryHost(n)
}

// knownHostLine is n's line of the lab's known_hosts.
func knownHostLine(n *Node) string {
	return fmt.Sprintf("[127.0.0.1]:%d %s", n.Port, ssh.MarshalAuthorizedKey(n.HostKey))
}

// inventoryHost is n's entry under a group's hosts in the lab's inventory.
func inventoryHost(n *Node) string {
	return fmt.Sprintf("        %s:\n          ansible_host: 127.0.0.1\n          ansible_port: %d\n", n.Name, n.Port)
}
