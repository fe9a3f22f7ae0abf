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
		{"apt pkg list", "apt: {pkg: [a, b], update-cache: yes}", map[string]any{"name": []any{"a", "b"}, "update_cache": true}},
		{"package", "package: {name: vim, state: latest}", map[string]any{"name": "vim", "state": "latest"}},
		{"get_url", "get_url: {url: 'https://x/y', dest: /tmp, checksum: 'sha256:ab', mode: '0644'}",
			map[string]any{"url": "https://x/y", "dest": "/tmp", "checksum": "sha256:ab", "mode": "0644"}},
		{"uri", "uri: {url: 'http://x', method: POST, body: {a: 1}, body_format: json, status_code: [200, 201], user: u}",
			map[string]any{"url": "http://x", "method": "POST", "body": map[string]any{"a": 1}, "body_format": "json", "status_code": []any{200, 201}, "url_username": "u"}},
		{"unarchive", "unarchive: {src: a.tgz, dest: /opt, remote_src: yes, extra_opts: [--strip-components=1]}",
			map[string]any{"src": "a.tgz", "dest": "/opt", "remote_src": true, "extra_opts": []any{"--strip-components=1"}}},
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
		{"lineinfile state", "lineinfile: {path: /x, line: a, state: gone}", `lineinfile: state must be one of present, absent, not "gone"`},
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

// TestConvertArgs checks Ansible's argument spec as the runner applies it when a task runs: a
// value of another type is converted by Python's rules, and what cannot be converted, a missing
// required argument or two exclusive ones fail the task in Ansible's words (ansible-core 2.14).
func TestConvertArgs(t *testing.T) {
	ok := []struct {
		mod        string
		args, want map[string]any
	}{
		{"lineinfile", map[string]any{"path": "/x", "line": map[string]any{"a": 1}, "create": "yes"},
			map[string]any{"path": "/x", "line": "{'a': 1}", "create": true}},
		{"lineinfile", map[string]any{"path": "/x", "line": []any{"a", true}, "create": 1},
			map[string]any{"path": "/x", "line": "['a', True]", "create": true}},
		{"lineinfile", map[string]any{"path": "/x", "line": 5.0, "backup": "f"}, map[string]any{"path": "/x", "line": "5.0", "backup": false}},
		{"copy", map[string]any{"dest": "/x", "content": map[string]any{"a": []any{"x", "y"}}}, map[string]any{"dest": "/x", "content": `{"a": ["x", "y"]}`}},
		{"copy", map[string]any{"dest": "/x", "content": true, "mode": 420}, map[string]any{"dest": "/x", "content": "True", "mode": 420}},
		{"wait_for", map[string]any{"port": "22", "timeout": 3.0}, map[string]any{"port": 22, "timeout": 3}},
		{"apt", map[string]any{"name": "a,b"}, map[string]any{"name": []any{"a", "b"}}},
		{"assert", map[string]any{"that": "x in [1, 2]"}, map[string]any{"that": "x in [1, 2]"}},
	}
	for _, tt := range ok {
		got, bad := ConvertArgs(tt.mod, tt.args)
		if bad != "" || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ConvertArgs(%s, %v) = %#v, %q; want %#v", tt.mod, tt.args, got, bad, tt.want)
		}
	}
	bad := []struct {
		mod  string
		args map[string]any
		want string
	}{
		{"file", map[string]any{"path": "/x", "recurse": "maybe"},
			"argument 'recurse' is of type <class 'str'> and we were unable to convert to bool: The value 'maybe' is not a valid boolean."},
		{"wait_for", map[string]any{"port": "ssh"}, "argument 'port' is of type <class 'str'> and we were unable to convert to int: <class 'str'> cannot be converted to an int"},
		{"apt", map[string]any{"name": map[string]any{"a": 1}}, "unable to convert to list: <class 'dict'> cannot be converted to a list"},
		{"lineinfile", map[string]any{"path": "/x", "line": "a", "state": "gone"}, "value of state must be one of: present, absent, got: gone"},
		{"lineinfile", map[string]any{"path": "/x", "line": "a", "insertafter": "b", "insertbefore": "c"}, "parameters are mutually exclusive: insertbefore|insertafter"},
		{"systemd", map[string]any{"name": "web"}, "one of the following is required: state, enabled, masked, daemon_reload, daemon_reexec"},
		{"replace", map[string]any{"path": "/x", "replace": "y"}, "missing required arguments: regexp"},
		{"get_url", map[string]any{"url": "http://x"}, "missing required arguments: dest"},
	}
	for _, tt := range bad {
		if _, msg := ConvertArgs(tt.mod, tt.args); !strings.HasPrefix(msg, tt.want) && !strings.Contains(msg, tt.want) {
			t.Errorf("ConvertArgs(%s, %v) fails with %q, want %q", tt.mod, tt.args, msg, tt.want)
		}
	}
}

// TestArgumentTypesLoad: what Ansible's argument spec converts or refuses only when the task
// runs loads (ConvertArgs acts then).
func TestArgumentTypesLoad(t *testing.T) {
	for _, task := range []string{
		"copy: {content: {a: 1}, dest: /x}", "lineinfile: {path: /x, line: [a]}", "wait_for: {port: ssh}",
		"copy: {content: x}", "copy: {src: a, content: b, dest: c}", "pause: {minutes: 1, seconds: 2}",
	} {
		if _, err := Parse("pb.yml", []byte("- hosts: all\n  tasks:\n    - "+task+"\n")); err != nil {
			t.Errorf("%s: %v", task, err)
		}
	}
}
