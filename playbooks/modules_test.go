package playbooks

import (
	"reflect"
	"strings"
	"testing"
)

// TestModuleArguments checks the argument specs of the modules Ansible playbooks use most:
// Ansible's aliases are renamed to the argument, and what kupgrade does not implement is refused
// by name, before any host is touched.
func TestModuleArguments(t *testing.T) {
	play := func(task string) string { return "- hosts: all\n  tasks:\n    - " + task + "\n" }
	ok := []struct {
		name, task string
		want       map[string]any
	}{
		{"lineinfile aliases", "ansible.builtin.lineinfile: {dest: /etc/x, regex: '^a', value: a=1}",
			map[string]any{"path": "/etc/x", "regexp": "^a", "line": "a=1"}},
		{"blockinfile content", "blockinfile: {name: /etc/x, content: b}", map[string]any{"path": "/etc/x", "block": "b"}},
		{"replace destfile", "replace: {destfile: /etc/x, regexp: a, replace: b}", map[string]any{"path": "/etc/x", "regexp": "a", "replace": "b"}},
		{"systemd unit and daemon-reload", "systemd: {unit: web, daemon-reload: true}", map[string]any{"name": "web", "daemon_reload": true}},
		{"systemd daemon_reload alone", "ansible.builtin.systemd_service: {daemon_reload: true}", map[string]any{"daemon_reload": true}},
		{"service key=value", "service: name=web state=started enabled=yes", map[string]any{"name": "web", "state": "started", "enabled": "yes"}},
		{"apt pkg list", "apt: {pkg: [a, b], update-cache: yes}", map[string]any{"name": []any{"a", "b"}, "update_cache": "yes"}},
		{"package", "package: {name: vim, state: latest}", map[string]any{"name": "vim", "state": "latest"}},
		{"get_url", "get_url: {url: 'https://x/y', dest: /tmp, checksum: 'sha256:ab', mode: '0644'}",
			map[string]any{"url": "https://x/y", "dest": "/tmp", "checksum": "sha256:ab", "mode": "0644"}},
		{"uri", "uri: {url: 'http://x', method: POST, body: {a: 1}, body_format: json, status_code: [200, 201], user: u}",
			map[string]any{"url": "http://x", "method": "POST", "body": map[string]any{"a": 1}, "body_format": "json", "status_code": []any{200, 201}, "url_username": "u"}},
		{"unarchive", "unarchive: {src: a.tgz, dest: /opt, remote_src: yes, extra_opts: [--strip-components=1]}",
			map[string]any{"src": "a.tgz", "dest": "/opt", "remote_src": "yes", "extra_opts": []any{"--strip-components=1"}}},
		{"command stdin_add_newline", "command: {cmd: cat, stdin: x, stdin_add_newline: false}",
			map[string]any{"_raw_params": "cat", "stdin": "x", "stdin_add_newline": false}},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			pb, err := Parse("pb.yml", []byte(play(tt.task)))
			if err != nil {
				t.Fatal(err)
			}
			if got := pb.Plays[0].Tasks[0].Args; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("args = %#v, want %#v", got, tt.want)
			}
		})
	}
	bad := []struct{ name, task, want string }{
		{"service pattern", "service: {name: web, state: started, pattern: web}",
			`pb.yml:3:44: service: argument "pattern" is not supported by kupgrade in task "service"`},
		{"apt deb", "apt: {deb: /tmp/x.deb}", `pb.yml:3:13: apt: argument "deb" is not supported by kupgrade`},
		{"lineinfile both inserts", "lineinfile: {path: /x, line: a, insertafter: b, insertbefore: c}",
			`lineinfile takes only one of "insertbefore", "insertafter"`},
		{"lineinfile state", "lineinfile: {path: /x, line: a, state: gone}", `lineinfile: state must be one of present, absent, not "gone"`},
		{"systemd nothing to do", "systemd: {name: web}", `systemd needs "state" or "enabled" or "masked" or "daemon_reload" or "daemon_reexec"`},
		{"replace without regexp", "replace: {path: /x, replace: y}", `replace needs "regexp"`},
		{"get_url without dest", "get_url: {url: 'http://x'}", `get_url needs "dest"`},
		{"uri multipart", "uri: {url: 'http://x', body_format: form-multipart}", `uri: body_format must be one of raw, json, form-urlencoded`},
		{"file state", "file: {path: /x, state: pipe}", `file: state must be one of`},
		{"shell strip_empty_ends", "shell: {cmd: ls, strip_empty_ends: false}", `shell: argument "strip_empty_ends" is not supported by kupgrade`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("pb.yml", []byte(play(tt.task)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}
