package inventory

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestHostConnectionVars(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": `
all:
  hosts:
    bare:
    full:
      ansible_host: 192.0.2.7
      ansible_port: "2222"
      ansible_user: admin
      ansible_become: "yes"
      ansible_become_user: kube
    legacy:
      ansible_ssh_host: 192.0.2.8
      ansible_ssh_port: 2200
      ansible_ssh_user: old
`})
	tests := []struct {
		host, addr, user, becomeUser string
		port                         int
		become                       bool
	}{
		{"bare", "bare", "", "", 22, false},
		{"full", "192.0.2.7", "admin", "kube", 2222, true},
		{"legacy", "192.0.2.8", "old", "", 2200, false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			h, _ := inv.Host(tt.host)
			if h.Address() != tt.addr || h.Port() != tt.port || h.User() != tt.user ||
				h.Become() != tt.become || h.BecomeUser() != tt.becomeUser {
				t.Errorf("got %s:%d user %q become %v/%q, want %s:%d user %q become %v/%q",
					h.Address(), h.Port(), h.User(), h.Become(), h.BecomeUser(),
					tt.addr, tt.port, tt.user, tt.become, tt.becomeUser)
			}
		})
	}
}

func TestKeyFileAndKnownHosts(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	tests := []struct {
		name, value string
		want        func(dir string) string
	}{
		{"unset", "", func(string) string { return "" }},
		{"absolute", "/etc/keys/id", func(string) string { return "/etc/keys/id" }},
		{"tilde", "~/.ssh/id_ed25519", func(string) string { return filepath.Join(home, ".ssh/id_ed25519") }},
		{"relative to the inventory folder", "keys/id", func(dir string) string { return filepath.Join(dir, "keys/id") }},
		{"dot-relative", "./keys/../id", func(dir string) string { return filepath.Join(dir, "id") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := "{}"
			if tt.value != "" {
				vars = "{ansible_ssh_private_key_file: '" + tt.value + "', kupgrade_known_hosts: '" + tt.value + "'}"
			}
			path := writeTree(t, map[string]string{"inventory.yml": "all:\n  vars: " + vars + "\n  hosts: {h: }\n"})
			// Load with a relative path from elsewhere: the result must not depend on the cwd.
			t.Chdir(filepath.Dir(filepath.Dir(path)))
			inv, err := Load(filepath.Join(filepath.Base(filepath.Dir(path)), "inventory.yml"))
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want(filepath.Dir(path))
			h, _ := inv.Host("h")
			if got := h.KeyFile(); got != want {
				t.Errorf("KeyFile() = %q, want %q", got, want)
			}
			if got := inv.KnownHosts(); got != want {
				t.Errorf("KnownHosts() = %q, want %q", got, want)
			}
		})
	}
}

func TestProxyJump(t *testing.T) {
	tests := []struct {
		common, extra string
		want          []string
	}{
		{"", "", nil},
		{"-o StrictHostKeyChecking=no", "", nil},
		{"-o ProxyJump=jump", "", []string{"jump"}},
		{"-o ProxyJump=user@jump:2222,other", "", []string{"user@jump:2222", "other"}},
		{"-oProxyJump=a@b", "", []string{"a@b"}},
		{`-o "ProxyJump ops@j1:2200"`, "", []string{"ops@j1:2200"}},
		{"-o proxyjump=j1", "", []string{"j1"}},
		{"-J j1,j2:23", "", []string{"j1", "j2:23"}},
		{"-Jops@j1", "", []string{"ops@j1"}},
		{"-J ssh://ops@j1:2200", "", []string{"ops@j1:2200"}},
		{"-J [2001:db8::1]:2200", "", []string{"[2001:db8::1]:2200"}},
		{"-o ProxyJump=first -J second", "", []string{"first"}}, // ssh keeps the first value
		{"-o ProxyJump=none", "", nil},
		{"-J common", "-J extra", []string{"common"}},   // Ansible passes the common args first
		{`-o ProxyCommand="nc %h %p"`, "-J later", nil}, // the first of ProxyCommand and ProxyJump wins
		{"-J common", "-o ServerAliveInterval=5", []string{"common"}},
	}
	for _, tt := range tests {
		t.Run(tt.common+"|"+tt.extra, func(t *testing.T) {
			h := &Host{Name: "h", Vars: map[string]any{"ansible_ssh_common_args": tt.common, "ansible_ssh_extra_args": tt.extra}}
			if got := h.ProxyJump(); !slices.Equal(got, tt.want) {
				t.Errorf("ProxyJump() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPersonality(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": `
all:
  children:
    # the explicit variable wins over the group
    controllers: {hosts: {c1: , forced2: {kupgrade_personality: storage}}}
    kube_control_plane: {hosts: {c2: }}
    workers: {hosts: {w1: }}
    kube_node: {hosts: {w2: , c2: , s1: }}
    storage: {hosts: {s1: }}
    other: {hosts: {o1: , forced: {kupgrade_personality: worker}}}
`})
	want := map[string]string{"c1": "controller", "c2": "controller", "w1": "worker", "w2": "worker",
		"s1": "storage", "o1": "", "forced": "worker", "forced2": "storage"}
	for name, p := range want {
		h, ok := inv.Host(name)
		if !ok {
			t.Fatalf("host %s missing", name)
		}
		if h.Personality() != p {
			t.Errorf("%s.Personality() = %q, want %q", name, h.Personality(), p)
		}
	}
	if got := hostNames(inv.Controllers()); !slices.Equal(got, []string{"c1", "c2"}) {
		t.Errorf("Controllers() = %v, want [c1 c2]", got)
	}
}

// A Host built by hand (as other packages' tests do) must work without Load.
func TestHandMadeHost(t *testing.T) {
	h := &Host{Name: "n1"}
	if h.Address() != "n1" || h.Port() != 22 || h.KeyFile() != "" || h.ProxyJump() != nil || h.Become() {
		t.Errorf("zero Host: %s:%d key %q jump %v become %v", h.Address(), h.Port(), h.KeyFile(), h.ProxyJump(), h.Become())
	}
}
