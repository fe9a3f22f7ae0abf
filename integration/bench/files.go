package main

import (
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// commandTasks is how many `command: /bin/true` tasks the playbook has; a copy and a stat follow.
const (
	commandTasks = 10
	payloadSize  = 1 << 20
)

// target is one benchmark host as the inventory and known_hosts see it.
type target struct {
	Name    string
	Port    int
	HostKey ssh.PublicKey
}

// workspace is the folder of files every tool reads: one inventory, known_hosts, ansible.cfg
// and playbook, so the tools differ only in themselves.
type workspace struct {
	Dir        string
	KeyFile    string // the client's private key, accepted by every server
	KnownHosts string
	Inventory  string
	AnsibleCfg string
	Playbook   string
	Payload    string // the 1 MiB file the playbook copies
	DestDir    string // where the copies land, one file per host
	ControlDir string // ansible's ControlPersist sockets
}

func newWorkspace(dir string) *workspace {
	return &workspace{
		Dir:        dir,
		KeyFile:    filepath.Join(dir, "id_ed25519"),
		KnownHosts: filepath.Join(dir, "known_hosts"),
		Inventory:  filepath.Join(dir, "inventory.yml"),
		AnsibleCfg: filepath.Join(dir, "ansible.cfg"),
		Playbook:   filepath.Join(dir, "playbook.yml"),
		Payload:    filepath.Join(dir, "payload.bin"),
		DestDir:    filepath.Join(dir, "dest"),
		ControlDir: filepath.Join(dir, "cp"),
	}
}

// writeFixed writes the files that do not depend on N: the payload and the playbook.
func (w *workspace) writeFixed() error {
	payload := make([]byte, payloadSize)
	rand.Read(payload) //nolint:errcheck // never fails
	if err := os.WriteFile(w.Payload, payload, 0o644); err != nil {
		return fmt.Errorf("write payload: %w", err)
	}
	if err := os.MkdirAll(w.ControlDir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", w.ControlDir, err)
	}
	return writeFile(w.Playbook, playbookText(w.Payload, w.DestDir))
}

// writeHosts writes the inventory, known_hosts and ansible.cfg for these hosts (forks = len).
func (w *workspace) writeHosts(hosts []target, user string) error {
	if err := writeFile(w.KnownHosts, knownHostsText(hosts)); err != nil {
		return err
	}
	if err := writeFile(w.Inventory, inventoryText(hosts, user, w.KeyFile)); err != nil {
		return err
	}
	return writeFile(w.AnsibleCfg, ansibleCfgText(len(hosts), w.Inventory, w.KnownHosts, w.ControlDir, w.Dir))
}

// freshDest empties the copy destination, so every run copies for real.
func (w *workspace) freshDest() error {
	if err := os.RemoveAll(w.DestDir); err != nil {
		return fmt.Errorf("clear %s: %w", w.DestDir, err)
	}
	if err := os.MkdirAll(w.DestDir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", w.DestDir, err)
	}
	return nil
}

func (w *workspace) dest(host string) string { return filepath.Join(w.DestDir, host+".bin") }

func writeFile(path, text string) error {
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

func hostPort(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// knownHostsText pins each server's key for [127.0.0.1]:PORT, the form OpenSSH and
// x/crypto/ssh/knownhosts both look up for a non-default port.
func knownHostsText(hosts []target) string {
	var b strings.Builder
	for _, h := range hosts {
		b.WriteString(knownhosts.Line([]string{hostPort(h.Port)}, h.HostKey) + "\n")
	}
	return b.String()
}

func inventoryText(hosts []target, user, keyFile string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "all:\n  vars:\n    ansible_user: %s\n    ansible_ssh_private_key_file: %s\n  hosts:\n", user, keyFile)
	for _, h := range hosts {
		fmt.Fprintf(&b, "    %s:\n      ansible_host: 127.0.0.1\n      ansible_port: %d\n", h.Name, h.Port)
	}
	return b.String()
}

// ansibleCfgText is Ansible at its fastest short of plugins: pipelining, ControlPersist,
// no fact gathering, no interpreter discovery, host keys checked against our known_hosts.
func ansibleCfgText(forks int, inventory, knownHosts, controlDir, dir string) string {
	return fmt.Sprintf(`[defaults]
inventory = %s
forks = %d
host_key_checking = True
interpreter_python = /usr/bin/python3
gathering = explicit
retry_files_enabled = False
local_tmp = %s
deprecation_warnings = False

[ssh_connection]
pipelining = True
ssh_args = -o ControlMaster=auto -o ControlPersist=60s -o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes
control_path_dir = %s
`, inventory, forks, filepath.Join(dir, "ansible-tmp"), knownHosts, controlDir)
}

// playbookText is the one playbook both tools run.
func playbookText(payload, destDir string) string {
	var b strings.Builder
	b.WriteString("- name: bench\n  hosts: all\n  gather_facts: false\n  tasks:\n")
	for i := range commandTasks {
		fmt.Fprintf(&b, "    - name: true %d\n      command: /bin/true\n", i+1)
	}
	dest := destDir + "/{{ inventory_hostname }}.bin"
	fmt.Fprintf(&b, "    - name: copy 1 MiB\n      copy:\n        src: %s\n        dest: %q\n", payload, dest)
	fmt.Fprintf(&b, "    - name: stat the copy\n      stat:\n        path: %q\n", dest)
	return b.String()
}
