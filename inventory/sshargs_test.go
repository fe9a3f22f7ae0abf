package inventory

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSSHArgs(t *testing.T) {
	tests := []struct {
		args string
		want SSHOptions
	}{
		{"", SSHOptions{}},
		{"-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null",
			SSHOptions{StrictHostKeyChecking: "no", KnownHostsFiles: []string{"/dev/null"}}},
		{"-o StrictHostKeyChecking=accept-new -o StrictHostKeyChecking=no", SSHOptions{StrictHostKeyChecking: "accept-new"}},
		{"-o StrictHostKeyChecking=ask", SSHOptions{StrictHostKeyChecking: "yes"}},
		{`-o "UserKnownHostsFile ~/a ~/b"`, SSHOptions{KnownHostsFiles: []string{"~/a", "~/b"}}},
		{"-i ~/k1 -o IdentityFile=k2 -ik3", SSHOptions{IdentityFiles: []string{"~/k1", "k2", "k3"}}},
		{"-p 2222 -o Port=22 -l ops -o User=root", SSHOptions{Port: 2222, User: "ops"}},
		{"-F ./ssh.cfg", SSHOptions{ConfigFile: "./ssh.cfg"}},
		{`-o ProxyCommand="ssh -W %h:%p bastion"`, SSHOptions{ProxySet: true, ProxyCommand: "ssh -W %h:%p bastion"}},
		{"-o ProxyCommand=none -J j1", SSHOptions{ProxySet: true}},
		{"-J j1,ops@j2:2200 -o ProxyCommand=x", SSHOptions{ProxySet: true, ProxyJump: []string{"j1", "ops@j2:2200"}}},
		{"-o IdentitiesOnly=true -o HostName=10.0.0.9", SSHOptions{IdentitiesOnly: "yes", HostName: "10.0.0.9"}},
		// harmless ones are ignored, combined flags included
		{"-C -qvv -tt -o ControlMaster=auto -o ControlPersist=60s -o ServerAliveInterval=30 -o ForwardAgent=no -S none",
			SSHOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			var got SSHOptions
			if err := ParseSSHArgs(tt.args, &got); err != nil {
				t.Fatalf("ParseSSHArgs: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSSHArgs(%q) = %+v, want %+v", tt.args, got, tt.want)
			}
		})
	}
}

func TestParseSSHArgsRefuses(t *testing.T) {
	tests := []struct{ args, want string }{
		{"-A", "ssh option -A is not supported by kupgrade"},
		{"-o ForwardAgent=yes", "ssh option ForwardAgent=yes is not supported by kupgrade"},
		{"-L 8080:localhost:80", "ssh option -L is not supported by kupgrade"},
		{"-o SendEnv=LANG", "ssh option SendEnv is not supported by kupgrade"},
		{"-o Port=0", "want a port from 1 to 65535"},
		{"-o StrictHostKeyChecking=maybe", "want yes, accept-new or no"},
		{"-p", "ssh option -p needs a value"},
		{"user@host", `ssh argument "user@host" is not supported by kupgrade`},
		{"-J jump:0", `jump host "jump:0" has a bad port "0"`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			err := ParseSSHArgs(tt.args, &SSHOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseSSHArgs(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}

// ansible_ssh_args come first on ssh's command line, then the common args, then the extra ones.
func TestSSHOptionsOrder(t *testing.T) {
	h := &Host{Name: "h", Vars: map[string]any{
		"ansible_ssh_args":        "-C -o ControlMaster=auto -o StrictHostKeyChecking=accept-new",
		"ansible_ssh_common_args": "-o StrictHostKeyChecking=no -o User=common -i k1",
		"ansible_ssh_extra_args":  "-o User=extra -i k2",
	}}
	o, err := h.SSHOptions()
	if err != nil {
		t.Fatal(err)
	}
	if o.StrictHostKeyChecking != "accept-new" || o.User != "common" || !reflect.DeepEqual(o.IdentityFiles, []string{"k1", "k2"}) {
		t.Errorf("SSHOptions() = %+v, want accept-new from ansible_ssh_args, User common, keys k1 k2", o)
	}
	h.Vars["ansible_ssh_args"] = "-o SendEnv=LANG"
	if _, err := h.SSHOptions(); err == nil || !strings.Contains(err.Error(), "ansible_ssh_args") {
		t.Errorf("SSHOptions() with SendEnv = %v, want an error naming ansible_ssh_args", err)
	}
}
