package sshconn_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// writeConfig writes an ssh_config and returns a Dialer of srv that reads it.
func writeConfig(t *testing.T, srv *sshtest.Server, text string) *sshconn.Dialer {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ssh_config")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	d := srv.Dialer()
	d.SSHConfig = path
	return d
}

// runPwd dials h and checks a command runs in srv's folder.
func runPwd(t *testing.T, d *sshconn.Dialer, h *inventory.Host, srv *sshtest.Server) {
	t.Helper()
	c, err := d.Dial(t.Context(), h)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	var out bytes.Buffer
	if exit, err := c.Run(t.Context(), "pwd", nil, &out, nil); err != nil || exit != 0 {
		t.Fatalf("Run = %d, %v", exit, err)
	}
	if got := strings.TrimSpace(out.String()); got != srv.Dir {
		t.Fatalf("command ran in %q, want the server's %q", got, srv.Dir)
	}
}

func TestSSHConfigHost(t *testing.T) {
	srv := sshtest.NewServer(t)
	d := writeConfig(t, srv, fmt.Sprintf(`
# a pattern that must not match
Host web-*.example.org
    Port 1
Host !db* web?
    HostName 127.0.0.1
    Port %d
    IdentityFile /nonexistent/key
    IdentityFile %s
Host *
    User %s
    Port 2
`, srv.Port, strings.Replace(srv.KeyFile, os.Getenv("HOME"), "~", 1), srv.User))
	// Only the inventory name: everything else comes from ssh_config.
	runPwd(t, d, &inventory.Host{Name: "web1"}, srv)
}

func TestInventoryWinsOverSSHConfig(t *testing.T) {
	srv := sshtest.NewServer(t)
	d := writeConfig(t, srv, `
Host 127.0.0.1
    Port 1
    IdentityFile /nonexistent/key
`)
	runPwd(t, d, srv.Host("node"), srv) // ansible_port and ansible_ssh_private_key_file win
	// ssh args win over ssh_config, but not over the inventory's variables.
	h := &inventory.Host{Name: "node", Vars: map[string]any{"ansible_host": "127.0.0.1",
		"ansible_ssh_common_args": fmt.Sprintf("-p %d -i %s", srv.Port, srv.KeyFile)}}
	runPwd(t, d, h, srv)
	h.Vars["ansible_port"] = 1
	if _, err := d.Dial(t.Context(), h); !sshconn.IsClass(err, sshconn.Unreachable) {
		t.Fatalf("Dial with ansible_port 1 = %v, want it refused (the inventory's port wins over -p)", err)
	}
}

func TestSSHConfigProxyJumpChain(t *testing.T) {
	target := sshtest.NewServer(t)
	jump1 := sshtest.NewServer(t, sshtest.WithClientKey(target.KeyFile), sshtest.WithKnownHosts(target.KnownHosts))
	jump2 := sshtest.NewServer(t, sshtest.WithClientKey(target.KeyFile), sshtest.WithKnownHosts(target.KnownHosts))
	// node -> via j1, and j1 is itself behind j2: ssh connects to j2, then j1, then node.
	d := writeConfig(t, target, fmt.Sprintf(`
Host node
    HostName 127.0.0.1
    Port %d
    ProxyJump j1
Host j1
    HostName 127.0.0.1
    Port %d
    ProxyJump j2
Host j2
    HostName 127.0.0.1
    Port %d
Host *
    IdentityFile %s
`, target.Port, jump1.Port, jump2.Port, target.KeyFile))
	runPwd(t, d, &inventory.Host{Name: "node"}, target)
	if jump1.Connections() != 1 || jump2.Connections() != 1 || target.Connections() != 1 {
		t.Errorf("connections: jump2 %d, jump1 %d, target %d; want 1 each",
			jump2.Connections(), jump1.Connections(), target.Connections())
	}
	// The inventory's ProxyJump wins over ssh_config's: straight through j2.
	h := &inventory.Host{Name: "node", Vars: map[string]any{"ansible_ssh_common_args": "-J j2"}}
	runPwd(t, d, h, target)
	if jump1.Connections() != 1 || jump2.Connections() != 2 {
		t.Errorf("with -J j2: jump2 %d, jump1 %d connections; want 2 and 1", jump2.Connections(), jump1.Connections())
	}
}

func TestProxyCommand(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("ssh (openssh-client) missing: apt-get install -y openssh-client")
	}
	target := sshtest.NewServer(t)
	jump := sshtest.NewServer(t, sshtest.WithClientKey(target.KeyFile), sshtest.WithKnownHosts(target.KnownHosts))
	proxy := fmt.Sprintf("ssh -F none -i %s -o BatchMode=yes -o UserKnownHostsFile=%s -p %d -W %%h:%%p %s@127.0.0.1",
		target.KeyFile, target.KnownHosts, jump.Port, jump.User)
	h := target.Host("node")
	h.Vars["ansible_ssh_common_args"] = fmt.Sprintf("-o ProxyCommand=%q", proxy)
	runPwd(t, target.Dialer(), h, target)
	if jump.Connections() != 1 {
		t.Errorf("the jump host saw %d connections, want 1 (from the ProxyCommand)", jump.Connections())
	}
	// A command that fails says why.
	h.Vars["ansible_ssh_common_args"] = `-o ProxyCommand="echo no route to %h:%p >&2; exit 3"`
	_, err := target.Dialer().Dial(t.Context(), h)
	if err == nil || !strings.Contains(err.Error(), "no route to 127.0.0.1:"+fmt.Sprint(target.Port)) {
		t.Fatalf("Dial through a failing ProxyCommand = %v, want its stderr in the error", err)
	}
}

func TestStrictHostKeyCheckingFromArgs(t *testing.T) {
	srv := sshtest.NewServer(t)
	other := sshtest.NewServer(t) // its known_hosts does not know srv
	h := srv.Host("node")
	d := srv.Dialer()
	d.KnownHosts = other.KnownHosts
	if _, err := d.Dial(t.Context(), h); !sshconn.IsClass(err, sshconn.HostKey) {
		t.Fatalf("Dial of an unknown host = %v, want a HostKey error", err)
	}
	// The common Ansible idiom: no checking, nothing recorded.
	h.Vars["ansible_ssh_common_args"] = "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
	runPwd(t, d, h, srv)
	// accept-new records the key in the UserKnownHostsFile the args name.
	kh := filepath.Join(t.TempDir(), "kh")
	h.Vars["ansible_ssh_common_args"] = "-o StrictHostKeyChecking=accept-new -o UserKnownHostsFile=" + kh
	runPwd(t, d, h, srv)
	if b, _ := os.ReadFile(kh); !strings.Contains(string(b), strings.Fields(srv.HostKeyLine)[2]) {
		t.Errorf("%s = %q, want srv's key recorded", kh, b)
	}
	// no also lets a changed key through, as ssh does; yes refuses it.
	changed := strings.Replace(other.HostKeyLine, other.Addr[strings.LastIndex(other.Addr, ":"):], srv.Addr[strings.LastIndex(srv.Addr, ":"):], 1)
	if err := os.WriteFile(kh, []byte(changed+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Vars["ansible_ssh_common_args"] = "-o StrictHostKeyChecking=yes -o UserKnownHostsFile=" + kh
	if _, err := d.Dial(t.Context(), h); err == nil || !strings.Contains(err.Error(), "CHANGED") {
		t.Fatalf("Dial with a changed key = %v, want it refused", err)
	}
	h.Vars["ansible_ssh_common_args"] = "-o StrictHostKeyChecking=no -o UserKnownHostsFile=" + kh
	runPwd(t, d, h, srv)
}

func TestSSHConfigErrors(t *testing.T) {
	srv := sshtest.NewServer(t)
	tests := []struct {
		name, config, args, want string
	}{
		{"missing -F file", "", "-F /nonexistent/ssh_config", "/nonexistent/ssh_config"},
		{"unsupported Match", "Match exec \"true\"\n  Port 2\n", "", "Match Exec is not supported"},
		{"bad port", "Host *\n  Port many\n", "", `Port "many" of host 127.0.0.1`},
		{"ProxyJump loop", "Host a\n  ProxyJump b\nHost b\n  ProxyJump a\nHost 127.0.0.1\n  ProxyJump a\n", "", "a loop in ssh_config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := writeConfig(t, srv, tt.config)
			h := srv.Host("node")
			h.Vars["ansible_ssh_common_args"] = tt.args
			_, err := d.Dial(t.Context(), h)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, fault.ErrBadInput) {
				t.Fatalf("Dial = %v, want a bad-input error containing %q", err, tt.want)
			}
		})
	}
}
