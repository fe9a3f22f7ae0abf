package playbooks

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
)

const validPlaybook = `- name: Upgrade
  hosts: [controllers, workers]
  serial: [1, "30%"]
  become: yes
  max_fail_percentage: 20
  vars:
    port: 6443
  tasks:
    - name: run it
      ansible.builtin.command: kubeadm version
      args:
        chdir: /tmp
      register: out
      when:
        - out is not defined
        - port == 6443
      changed_when: false
      timeout: "{{ kubeadm_timeout | default(900) }}"
      notify: restart
      tags: a, b
    - name: guarded
      block:
        - shell: echo hi
      rescue:
        - debug:
            msg: "failed on {{ inventory_hostname }}"
      always:
        - copy: src=a.txt dest="/tmp/b c.txt" mode=0644
    - name: retry
      stat:
        path: /etc/kubernetes
      register: st
      until: st.stat.exists
      retries: 3
      delay: 2
      loop: "{{ ['a', 'b'] }}"
      loop_control:
        loop_var: f
  handlers:
    - name: restart
      command: systemctl restart kubelet
`

func TestParseValid(t *testing.T) {
	pb, err := Parse("site.yml", []byte(validPlaybook))
	if err != nil {
		t.Fatal(err)
	}
	p := pb.Plays[0]
	if p.Hosts != "controllers:workers" || !reflect.DeepEqual(p.Serial, []string{"1", "30%"}) ||
		p.Become == nil || !*p.Become || *p.MaxFailPercentage != 20 || p.Vars["port"] != 6443 {
		t.Errorf("play decoded wrong: %+v", p)
	}
	if p.Line != 1 || p.Column != 3 || p.File != "site.yml" {
		t.Errorf("play position = %s:%d:%d, want site.yml:1:3", p.File, p.Line, p.Column)
	}
	run := p.Tasks[0]
	want := &Task{
		Name: "run it", Module: "command",
		Args:     map[string]any{"_raw_params": "kubeadm version", "chdir": "/tmp"},
		Register: "out", When: []string{"out is not defined", "port == 6443"}, ChangedWhen: []string{"false"},
		Timeout: "{{ kubeadm_timeout | default(900) }}", Notify: []string{"restart"}, Tags: []string{"a", "b"},
		File: "site.yml", Line: 9, Column: 7, phase: "tasks",
	}
	if !reflect.DeepEqual(run, want) {
		t.Errorf("task decoded as\n%+v\nwant\n%+v", run, want)
	}
	block := p.Tasks[1]
	if !block.IsBlock() || len(block.Rescue) != 1 || block.Always[0].Module != "copy" {
		t.Fatalf("block decoded wrong: %+v", block)
	}
	if got := block.Always[0].Args; got["dest"] != "/tmp/b c.txt" || got["src"] != "a.txt" || got["mode"] != "0644" {
		t.Errorf("key=value args = %v", got)
	}
	retry := p.Tasks[2]
	if retry.Until != "st.stat.exists" || retry.Retries != 3 || retry.Delay != "2" || retry.LoopVar != "f" || retry.Loop != "{{ ['a', 'b'] }}" {
		t.Errorf("retry task decoded wrong: %+v", retry)
	}
	if retry.Line != 29 {
		t.Errorf("retry task at line %d, want 29", retry.Line)
	}
}

func TestParseErrors(t *testing.T) {
	play := func(tasks string) string { return "- hosts: all\n  tasks:\n" + tasks }
	tests := []struct {
		name, src, want string
	}{
		{"typo in task key", play("    - name: x\n      command: ls\n      whne: true\n"),
			`pb.yml:5:7: unknown key "whne" in task "x" (did you mean "when"?)`},
		{"typo in play key", "- hsots: all\n  tasks: []\n",
			`pb.yml:1:3: unknown key "hsots" in a play (did you mean "hosts"?)`},
		{"typo in module", play("    - name: x\n      comand: ls\n"),
			`pb.yml:4:7: unknown key "comand" in task "x" (did you mean "command"?)`},
		{"prefixed typo in module", play("    - ansible.builtin.comand: ls\n"),
			`pb.yml:3:7: unknown key "ansible.builtin.comand" in a task (did you mean "command"?)`},
		{"other collection", play("    - acme.tools.ufw: {rule: allow}\n"),
			`pb.yml:3:7: module "acme.tools.ufw" is not supported by kupgrade (a task); it runs`},
		{"unsupported task keyword", play("    - command: ls\n      debugger: on_failed\n"),
			`pb.yml:4:7: task keyword "debugger" is not supported by kupgrade (task "command")`},
		{"poll 0", play("    - command: ls\n      async: 10\n      poll: 0\n"),
			`pb.yml:5:13: poll: 0 of task "command" is not supported by kupgrade: it runs a task to its end before the next, so it cannot leave one running to be collected by async_status; give poll a number of seconds above 0`},
		{"diff not a boolean", play("    - command: ls\n      diff: maybe\n"),
			`pb.yml:4:13: diff of task "command" must be true or false, not "maybe"`},
		{"reboot with an argument it lacks", play("    - ansible.builtin.reboot: {reboot_timeout_sec: 600}\n"),
			`pb.yml:3:32: reboot: argument "reboot_timeout_sec" is not supported by kupgrade (it takes boot_time_command, connect_timeout, msg, post_reboot_delay, pre_reboot_delay, reboot_command, reboot_timeout, search_paths, test_command)`},
		{"async_status", play("    - async_status: {jid: x}\n"),
			`pb.yml:3:7: module "async_status" is not supported by kupgrade (a task): it collects tasks started with poll: 0`},
		{"unsupported play keyword", "- hosts: all\n  vars_prompt: [{name: pw}]\n  tasks: []\n",
			`pb.yml:2:3: play keyword "vars_prompt" is not supported by kupgrade (a play)`},
		{"unsupported strategy", "- hosts: all\n  strategy: host_pinned\n  tasks: []\n",
			`pb.yml:2:13: strategy "host_pinned" is not supported by kupgrade; it runs strategy linear (and free as linear)`},
		{"include of a missing file", play("    - include: x.yml\n"),
			`pb.yml:3:16: import_tasks: x.yml not found in .`},
		{"unsupported lookup loop", play("    - command: ls\n      with_cartesian: [[1], [2]]\n"),
			`pb.yml:4:7: "with_cartesian" is not supported by kupgrade (task "command"); it loops with loop and with_`},
		{"action without module", play("    - action: {msg: hi}\n"),
			`pb.yml:3:15: action has no module key; write action: {module: NAME, ARG: VALUE}`},
		{"unsupported meta", play("    - meta: clear_facts\n"),
			`pb.yml:3:13: meta: clear_facts is not supported by kupgrade`},
		{"loop on import_tasks", play("    - import_tasks: x.yml\n      loop: [1]\n"),
			`pb.yml:4:7: "loop" on import_tasks is not supported by kupgrade (task "import_tasks"); loop over include_tasks`},
		{"missing import", play("    - import_tasks: nowhere.yml\n"),
			`pb.yml:3:21: import_tasks: nowhere.yml not found in`},
		{"missing role", "- hosts: all\n  roles: [nosuchrole]\n",
			`pb.yml:2:11: role "nosuchrole" not found; looked in`},
		{"unsupported module option", play("    - copy: {src: a, dest: b, directory_mode: '0755'}\n"),
			`pb.yml:3:31: copy: argument "directory_mode" is not supported by kupgrade (it takes`},
		{"collection role", "- hosts: all\n  roles: [acme.tools.web]\n",
			`pb.yml:2:11: role "acme.tools.web": roles from collections are not supported by kupgrade`},
		{"no module", play("    - name: x\n      register: r\n"),
			`pb.yml:3:7: task "x" has no module; kupgrade runs `},
		{"two modules", play("    - name: x\n      command: ls\n      shell: ls\n"),
			`pb.yml:5:7: task "x" has two modules, "command" and "shell"; split it into two tasks`},
		{"serial word", "- hosts: all\n  serial: many\n  tasks: []\n",
			`pb.yml:2:11: serial of a play must be a number, a percentage like "30%", or a list of them; not "many"`},
		{"serial in list", "- hosts: all\n  serial: [1, 200%]\n  tasks: []\n",
			`pb.yml:2:15: serial of a play must be a number`},
		{"loop plain string", play("    - debug: {msg: hi}\n      loop: abc\n"),
			`pb.yml:4:13: loop of task "debug" must be a list or a "{{ }}" expression, not "abc"`},
		{"until without retries", play("    - name: x\n      command: ls\n      until: r.rc == 0\n"),
			`pb.yml:5:7: task "x" has until but no retries; say how many times to try`},
		{"rescue without block", play("    - name: x\n      command: ls\n      rescue: []\n"),
			`pb.yml:5:7: task "x" has rescue but no block`},
		{"register on block", play("    - block: []\n      register: r\n"),
			`pb.yml:4:7: "register" is not allowed on a block (a task); put it on the tasks inside`},
		{"block and module", play("    - block: []\n      command: ls\n"),
			`pb.yml:4:7: task "command" has both a block and the module "command"`},
		{"unknown module argument", play("    - stat:\n        path: /x\n        folow: true\n"),
			`pb.yml:5:9: stat: unknown argument "folow" (did you mean "follow"?) in task "stat"`},
		{"file state choice", play("    - file: {path: /x, state: dir}\n"),
			`pb.yml:3:24: file: state must be one of file, directory, absent, touch, link, hard, not "dir" in task "file"`},
		{"bad condition", play("    - name: x\n      command: ls\n      when: r.rc ==\n"),
			`pb.yml:5:13: bad condition in when of task "x":`},
		{"unknown filter", play("    - command: echo {{ x | frobnicate }}\n"),
			`pb.yml:3:16: bad template in command "_raw_params" of task "command": filter 'frobnicate' is not supported by kupgrade`},
		{"collection filter", play("    - command: echo {{ ip | ansible.utils.ipmath(1) }}\n"),
			`pb.yml:3:16: bad template in command "_raw_params" of task "command": filter 'ansible.utils.ipmath' is not supported by kupgrade`},
		{"collection test", play("    - command: ls\n      when: x is community.general.frob\n"),
			`pb.yml:4:13: bad condition in when of task "command": test 'community.general.frob' is not supported by kupgrade`},
		{"retries not a number", play("    - command: ls\n      until: true\n      retries: lots\n"),
			`pb.yml:5:16: retries of task "command" must be a whole number, not "lots"`},
		{"become not bool", "- hosts: all\n  become: maybe\n  tasks: []\n",
			`pb.yml:2:11: become of a play must be true or false, not "maybe"`},
		{"no hosts", "- name: p\n  tasks: []\n", `pb.yml:1:3: play "p" has no hosts`},
		{"task key on play", "- hosts: all\n  command: ls\n", `pb.yml:2:3: unknown key "command" in a play; tasks go under tasks:`},
		{"duplicate key", play("    - command: ls\n      command: pwd\n"), `pb.yml:4:7: duplicate key "command" in a task`},
		{"empty command", play("    - command: \"\"\n"), `pb.yml:3:16: command in task "command" has an empty command`},
		{"not a list", "hosts: all\n", `pb.yml:1:1: a playbook must be a list, not a mapping`},
		{"empty", "", `pb.yml: the playbook is empty`},
		{"bad yaml", "- hosts: all\n  tasks: [\n", `pb.yml:`},
		{"unclosed statement", play("    - shell: \"{% if x %}a\"\n"), `pb.yml:3:14: bad template in shell "_raw_params" of task "shell": Unable to parse controlStructure "if"`},
		{"listen on task", play("    - command: ls\n      listen: x\n"), `pb.yml:4:7: listen is only for handlers`},
		{"bad var name", "- hosts: all\n  vars:\n    my-var: 1\n  tasks: []\n", `pb.yml:3:5: "my-var" in vars of a play is not a valid variable name`},
		{"timeout words", play("    - command: ls\n      timeout: soon\n"), `pb.yml:4:16: timeout of task "command" must be seconds or a duration like "15m", not "soon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("pb.yml", []byte(tt.src))
			if err == nil {
				t.Fatalf("Parse succeeded, want error %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n got %q\nwant %q...", err, tt.want)
			}
			if !errors.Is(err, fault.ErrBadInput) {
				t.Errorf("error %v is not of class bad input", err)
			}
		})
	}
}

// A notify naming no handler loads: Ansible fails only when a changed task notifies it.
func TestNotifyOfMissingHandlerLoads(t *testing.T) {
	pb, err := Parse("pb.yml", []byte("- hosts: all\n  tasks:\n    - command: ls\n      notify: restrat\n  handlers:\n    - name: restart\n      command: ls\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := pb.Plays[0].Tasks[0].Notify; len(got) != 1 || got[0] != "restrat" {
		t.Errorf("notify = %q, want [restrat]", got)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "site.yml")
	if err := os.WriteFile(path, []byte("- hosts: all\n  tasks:\n    - ping:\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pb, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if pb.File != path || pb.Plays[0].Tasks[0].Module != "ping" || pb.Plays[0].Tasks[0].File != path {
		t.Errorf("Load = %+v", pb.Plays[0].Tasks[0])
	}
	_, err = Load(filepath.Join(dir, "missing.yml"))
	if !errors.Is(err, fault.ErrBadInput) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file = %v, want a bad-input error wrapping ErrNotExist", err)
	}
}

func TestPreAndPostTasksKeepOrder(t *testing.T) {
	src := "- hosts: all\n  post_tasks: [{name: c, ping: }]\n  tasks: [{name: b, ping: }]\n  pre_tasks: [{name: a, ping: }]\n"
	pb, err := Parse("pb.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, task := range pb.Plays[0].Tasks {
		names = append(names, task.Name)
	}
	// Ansible flushes handlers after pre_tasks and before post_tasks.
	if strings.Join(names, ",") != "a,flush_handlers,b,flush_handlers,c" {
		t.Errorf("task order = %v, want a,flush_handlers,b,flush_handlers,c", names)
	}
}
