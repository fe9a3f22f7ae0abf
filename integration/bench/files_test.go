//go:build integration

package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
)

func hostKey(t *testing.T) ssh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The files the benchmark writes must be read by kupgrade's own loaders as intended: the same
// hosts, the same key, the playbook of 10 commands, a copy and a stat.
func TestWorkspaceFilesLoad(t *testing.T) {
	w := newWorkspace(t.TempDir())
	hosts := []target{{Name: "h001", Port: 40001, HostKey: hostKey(t)}, {Name: "h002", Port: 40002, HostKey: hostKey(t)}}
	if err := w.writeFixed(); err != nil {
		t.Fatal(err)
	}
	if err := w.writeHosts(hosts, "bench"); err != nil {
		t.Fatal(err)
	}

	inv, err := inventory.Load(w.Inventory)
	if err != nil {
		t.Fatalf("inventory.Load: %v", err)
	}
	if len(inv.Hosts) != len(hosts) {
		t.Fatalf("inventory has %d hosts, want %d", len(inv.Hosts), len(hosts))
	}
	for i, h := range inv.Hosts {
		if h.Name != hosts[i].Name || h.Address() != "127.0.0.1" || h.Port() != hosts[i].Port || h.User() != "bench" || h.KeyFile() != w.KeyFile {
			t.Errorf("host %d = %s %s:%d user %q key %q", i, h.Name, h.Address(), h.Port(), h.User(), h.KeyFile())
		}
	}

	pb, err := playbooks.Load(w.Playbook)
	if err != nil {
		t.Fatalf("playbooks.Load: %v", err)
	}
	if len(pb.Plays) != 1 || pb.Plays[0].GatherFacts {
		t.Fatalf("want one play without fact gathering, got %d plays", len(pb.Plays))
	}
	var modules []string
	for _, task := range pb.Plays[0].Tasks {
		modules = append(modules, task.Module)
	}
	want := strings.Repeat("command ", commandTasks) + "copy stat"
	if got := strings.Join(modules, " "); got != want {
		t.Errorf("modules = %s, want %s", got, want)
	}

	check, err := knownhosts.New(w.KnownHosts)
	if err != nil {
		t.Fatalf("known_hosts: %v", err)
	}
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40002}
	if err := check("127.0.0.1:40002", addr, hosts[1].HostKey); err != nil {
		t.Errorf("known_hosts refuses the server's own key: %v", err)
	}
	if err := check("127.0.0.1:40002", addr, hosts[0].HostKey); err == nil {
		t.Error("known_hosts accepts another server's key")
	}
}

// Ansible must get the settings the comparison claims: forks = N, pipelining, ControlPersist,
// host keys checked against the benchmark's known_hosts, no fact gathering.
func TestAnsibleCfg(t *testing.T) {
	w := newWorkspace(t.TempDir())
	if err := w.writeHosts([]target{{Name: "h001", Port: 40001, HostKey: hostKey(t)}}, "bench"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.AnsibleCfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"forks = 1\n", "pipelining = True\n", "ControlPersist=60s", "UserKnownHostsFile=" + w.KnownHosts,
		"StrictHostKeyChecking=yes", "host_key_checking = True\n", "gathering = explicit\n", "interpreter_python = /usr/bin/python3\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("ansible.cfg lacks %q:\n%s", want, b)
		}
	}
}
