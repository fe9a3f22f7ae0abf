package lab

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"
)

// Files a lab writes into its folder.
const (
	InventoryFile  = "inventory.yml"
	KnownHostsFile = "known_hosts"
	KeyFile        = "id_ed25519"
	StateFile      = "lab.json"
)

// Commands on the nodes that stand in for installing the kubelet without apt and for restarting
// it; the inventory hands the restart to kupgrade's playbooks.
const (
	KubeletInstallCommand = "/usr/local/sbin/kupgrade-lab-kubelet install"
	KubeletRestartCommand = "/usr/local/sbin/kupgrade-lab-kubelet restart"
	// KubeletConfigPath is the kubelet config kubeadm's kubelet-config phase rewrites.
	KubeletConfigPath = "/var/lib/kubelet/config.yaml"
)

type clientKey struct {
	path       string
	signer     ssh.Signer
	authorized string // the public key, authorized_keys format
}

// newClientKey makes the lab's ed25519 client key and writes it (OpenSSH format) into dir.
func newClientKey(dir string) (*clientKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate client key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "kupgrade-lab")
	if err != nil {
		return nil, fmt.Errorf("encode client key: %w", err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return nil, fmt.Errorf("client key signer: %w", err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("client public key: %w", err)
	}
	abs, err := filepath.Abs(filepath.Join(dir, KeyFile))
	if err != nil {
		return nil, fmt.Errorf("key path: %w", err)
	}
	authorized := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub))) + " kupgrade-lab"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create lab folder: %w", err)
	}
	if err := os.WriteFile(abs, pem.EncodeToMemory(block), 0o600); err != nil {
		return nil, fmt.Errorf("write client key: %w", err)
	}
	if err := os.WriteFile(abs+".pub", []byte(authorized+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("write client key: %w", err)
	}
	return &clientKey{path: abs, signer: signer, authorized: authorized}, nil
}

// Inventory is the path of the lab's Ansible YAML inventory.
func (l *Lab) Inventory() string { return l.path(InventoryFile) }

// KnownHosts is the path of the lab's known_hosts, one line per node.
func (l *Lab) KnownHosts() string { return l.path(KnownHostsFile) }

// KeyFile is the path of the lab's private key for sysadmin.
func (l *Lab) KeyFile() string { return l.keys.path }

func (l *Lab) path(name string) string {
	p, err := filepath.Abs(filepath.Join(l.Dir, name))
	if err != nil {
		return filepath.Join(l.Dir, name)
	}
	return p
}

// commandVars are the inventory's restart commands and the lab's facts. On either lab kupgrade
// installs kubeadm, kubelet and kubectl its default way, from the lab's per-minor apt
// repositories (simulated on the simulated lab). The simulated lab has the kubelet's restart; a
// real lab the systemctl shim, the version the lab can be upgraded to in one minor, every
// version it has in order (kupgrade_lab_versions) and the lab's download-images playbook.
func (l *Lab) commandVars() string {
	var b strings.Builder
	if l.real == nil {
		fmt.Fprintf(&b, "    kupgrade_kubelet_restart: %q\n", KubeletRestartCommand)
		return b.String()
	}
	fmt.Fprintf(&b, "    kupgrade_kubelet_restart: %q\n", "systemctl daemon-reload && systemctl restart kubelet")
	fmt.Fprintf(&b, "    kupgrade_lab_next_version: %q\n", l.real.build.To)
	fmt.Fprintf(&b, "    kupgrade_lab_versions: [%s]\n", quotedList(l.real.build.Versions))
	fmt.Fprintf(&b, "    kupgrade_playbooks:\n      download-images: %q\n", realImagesPlaybook)
	return b.String()
}

// state is lab.json: what Down needs (the name) and, for people, where each node answers.
type state struct {
	Name  string      `json:"name"`
	Nodes []stateNode `json:"nodes"`
}

type stateNode struct {
	Name           string `json:"name"`
	Port           int    `json:"port"`
	PackageManager string `json:"package_manager,omitempty"` // dnf: an RPM host
}

func (l *Lab) writeFiles() error {
	var hosts, controllers, workers strings.Builder
	var st state
	st.Name = l.Name
	for _, n := range l.nodes {
		hosts.WriteString(knownHostLine(n))
		group := &workers
		if n.Role == "controller" {
			group = &controllers
		}
		group.WriteString(inventoryHost(n))
		if n.PackageManager == DnfManager {
			fmt.Fprintf(group, "          ansible_pkg_mgr: %s\n", DnfManager)
		}
		st.Nodes = append(st.Nodes, stateNode{n.Name, n.Port, n.PackageManager})
	}
	etcdKnownHost, etcdGroup := l.etcdFiles()
	hosts.WriteString(etcdKnownHost)
	var inv strings.Builder
	fmt.Fprintf(&inv, "# kupgrade lab %s (remove it with: kupgrade-lab down --dir %s)\n", l.Name, l.Dir)
	fmt.Fprintf(&inv, "all:\n  vars:\n    ansible_user: sysadmin\n    ansible_ssh_private_key_file: %q\n", l.keys.path)
	fmt.Fprintf(&inv, "    ansible_become: true\n    kupgrade_known_hosts: %q\n    kupgrade_cluster: %q\n", l.KnownHosts(), l.Name)
	inv.WriteString(l.commandVars())
	fmt.Fprintf(&inv, "  children:\n    controllers:\n      hosts:\n%s", controllers.String())
	if workers.Len() > 0 {
		fmt.Fprintf(&inv, "    workers:\n      hosts:\n%s", workers.String())
	}
	inv.WriteString(etcdGroup)
	stateJSON, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode lab state: %w", err)
	}
	files := map[string]string{
		KnownHostsFile: hosts.String(), InventoryFile: inv.String(), StateFile: string(stateJSON) + "\n",
	}
	if l.real != nil {
		files[realImagesPlaybook] = realImagesCheck
	}
	for name, data := range files {
		if err := os.WriteFile(l.path(name), []byte(data), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// quotedList is a YAML flow sequence's items: each string double-quoted.
func quotedList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
