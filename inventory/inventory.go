package inventory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Host is one inventory host with its resolved groups and variables.
type Host struct {
	Name   string
	Groups []string       // every group the host is in, "all" included, sorted
	Vars   map[string]any // resolved with Ansible's precedence (see the package comment)

	dir string     // the inventory's folder, absolute; relative paths resolve against it
	inv *Inventory // the inventory it came from, for JSON's group tree; nil when built by hand
}

// Inventory is a loaded inventory.
type Inventory struct {
	Path   string
	Hosts  []*Host             // in file order, each once
	Groups map[string][]string // group -> host names (resolved, children included), file order
	// Warnings are what the files hold that Ansible reads past with a warning (a group's key
	// other than hosts, children and vars), each naming its file and line.
	Warnings []string

	dir        string
	groups     map[string]*group
	groupOrder []string
	byName     map[string]*Host
	allVars    map[string]varDef
}

// Var returns a resolved variable of the host.
func (h *Host) Var(name string) (any, bool) {
	v, ok := h.Vars[name]
	return v, ok
}

// str returns the first of names that is set, as text.
func (h *Host) str(names ...string) string {
	for _, n := range names {
		if v, ok := h.Vars[n]; ok && v != nil {
			if s, ok := asString(v); ok {
				return s
			}
		}
	}
	return ""
}

// Address is where to connect: ansible_host, else the host's name.
func (h *Host) Address() string {
	if a := h.str("ansible_host", "ansible_ssh_host"); a != "" {
		return a
	}
	return h.Name
}

// Port is ansible_port, else 22.
func (h *Host) Port() int {
	for _, n := range []string{"ansible_port", "ansible_ssh_port"} {
		if v, ok := h.Vars[n]; ok {
			if p, ok := asInt(v); ok && p > 0 && p < 65536 {
				return p
			}
		}
	}
	return 22
}

// User is ansible_user, else "" (the caller's default applies).
func (h *Host) User() string { return h.str("ansible_user", "ansible_ssh_user") }

// KeyFile is ansible_ssh_private_key_file with ~ expanded and a relative path resolved against
// the inventory's folder, so the inventory works from any working directory; "" if none.
func (h *Host) KeyFile() string {
	return resolvePath(h.str("ansible_ssh_private_key_file", "ansible_private_key_file"), h.dir)
}

// Become is ansible_become.
func (h *Host) Become() bool {
	b, _ := asBool(h.Vars["ansible_become"])
	return b
}

// BecomeUser is ansible_become_user, else "" (root).
func (h *Host) BecomeUser() string { return h.str("ansible_become_user") }

// sshArgVars hold ssh arguments, in the order Ansible puts them on ssh's command line.
var sshArgVars = []string{"ansible_ssh_args", "ansible_ssh_common_args", "ansible_ssh_extra_args"}

// SSHOptions reads ansible_ssh_args, ansible_ssh_common_args and ansible_ssh_extra_args as ssh
// would see them (Ansible passes them in that order, and ssh keeps the first value of an option).
func (h *Host) SSHOptions() (SSHOptions, error) {
	var o SSHOptions
	for _, name := range sshArgVars {
		if err := ParseSSHArgs(h.str(name), &o); err != nil {
			return SSHOptions{}, fmt.Errorf("%s of host %q: %w", name, h.Name, err)
		}
	}
	return o, nil
}

// ProxyJump lists the jump hosts, in order, from ProxyJump (or -J) in ansible_ssh_common_args or
// ansible_ssh_extra_args, each as [user@]host[:port].
func (h *Host) ProxyJump() []string {
	o, _ := h.SSHOptions()
	return o.ProxyJump
}

// PortSet tells whether ansible_port (or ansible_ssh_port) is set: only then does it win over
// the port of an ssh_config, as with Ansible, which passes -o Port only when it is set.
func (h *Host) PortSet() bool {
	for _, n := range []string{"ansible_port", "ansible_ssh_port"} {
		if v, ok := h.Vars[n]; ok {
			if p, ok := asInt(v); ok && p > 0 && p < 65536 {
				return true
			}
		}
	}
	return false
}

// NodeName is the host's Kubernetes node name: kupgrade_node_name, else the inventory name.
func (h *Host) NodeName() string {
	if n := h.str("kupgrade_node_name"); n != "" {
		return n
	}
	return h.Name
}

// Personality is kupgrade_personality, else derived from the groups: controllers or
// kube_control_plane make a controller, storage a storage node, workers or kube_node a worker, in
// that order (kubespray puts control-plane nodes in kube_node too). "" when nothing says.
func (h *Host) Personality() string {
	if p := h.str("kupgrade_personality"); p != "" {
		return p
	}
	in := func(names ...string) bool {
		for _, n := range names {
			if slices.Contains(h.Groups, n) {
				return true
			}
		}
		return false
	}
	switch {
	case in("controllers", "kube_control_plane"):
		return "controller"
	case in("storage"):
		return "storage"
	case in("workers", "kube_node"):
		return "worker"
	}
	return ""
}

// Host returns the host of that name.
func (inv *Inventory) Host(name string) (*Host, bool) {
	h, ok := inv.byName[name]
	return h, ok
}

// GroupNames lists every group, all and ungrouped included, sorted.
func (inv *Inventory) GroupNames() []string {
	names := make([]string, 0, len(inv.Groups))
	for g := range inv.Groups {
		names = append(names, g)
	}
	slices.Sort(names)
	return names
}

// Cluster is kupgrade_cluster of group all (inventory file or group_vars/all), else "".
func (inv *Inventory) Cluster() string {
	s, _ := asString(inv.allVars["kupgrade_cluster"].val)
	return s
}

// KnownHosts is kupgrade_known_hosts of group all, ~ expanded and resolved against the
// inventory's folder, else "".
func (inv *Inventory) KnownHosts() string {
	s, _ := asString(inv.allVars["kupgrade_known_hosts"].val)
	return resolvePath(s, inv.dir)
}

// Controllers lists the hosts whose personality is controller, in file order.
func (inv *Inventory) Controllers() []*Host {
	var out []*Host
	for _, h := range inv.Hosts {
		if h.Personality() == "controller" {
			out = append(out, h)
		}
	}
	return out
}

// Nodes lists the hosts that are Kubernetes nodes, in file order: those with a personality
// (controller, worker or storage). A host of another group only, such as an external etcd
// member of the group etcd, runs no kubelet and is no node.
func (inv *Inventory) Nodes() []*Host {
	var out []*Host
	for _, h := range inv.Hosts {
		if h.Personality() != "" {
			out = append(out, h)
		}
	}
	return out
}

func resolvePath(p, dir string) string {
	if p == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	return p
}
