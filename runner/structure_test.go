package runner_test

import (
	"github.com/kupgrade/kupgrade/internal/testtree"

	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// playTree loads dir/inventory.yml and dir/site.yml and plays them through d.
func playTree(t *testing.T, d runner.Dialer, dir string, po runner.PlayOptions) (*runner.Recap, error, *recorder) {
	t.Helper()
	inv, err := inventory.Load(filepath.Join(dir, "inventory.yml"))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := playbooks.Load(filepath.Join(dir, "site.yml"))
	if err != nil {
		t.Fatalf("load playbook: %v", err)
	}
	rec := &recorder{}
	r := runner.New(d, runner.Options{Reporter: rec})
	t.Cleanup(func() { r.Close() })
	recap, err := r.Play(t.Context(), pb, inv, po)
	return recap, err, rec
}

func regField(t *testing.T, recap *runner.Recap, host, name, field string) any {
	t.Helper()
	r, ok := recap.Registered[host][name].(map[string]any)
	if !ok {
		t.Fatalf("%s did not register %s (registered: %v)", host, name, recap.Registered[host])
	}
	return r[field]
}

// The order in which a variable set at several levels wins is Ansible's (checked against
// ansible-playbook 2.14 with the same files): role defaults < inventory < play vars <
// vars_files < role vars < block vars < task vars < include params, set_fact under include
// params but over task vars, extra vars over all.
func TestVariablePrecedence(t *testing.T) {
	files := map[string]string{
		"roles/r/tasks/main.yml": `- set_fact: {a9: fact, a11: fact}
- block:
    - include_tasks: show.yml
      vars: {a8: include, a9: include, a10: include}
  vars: {a6: block, a7: block, a8: block, a9: block, a10: block, a11: block}
`,
		"roles/r/tasks/show.yml": `- debug:
    msg: "{{ a1 }} {{ a2 }} {{ a3 }} {{ a4 }} {{ a5 }} {{ a6 }} {{ a7 }} {{ a8 }} {{ a9 }} {{ a10 }} {{ a11 }}"
  vars: {a7: task, a8: task, a9: task, a10: task, a11: task}
  register: shown
`,
		"site.yml": `- hosts: all
  gather_facts: false
  vars_files: [vf.yml]
  vars: {a3: play, a4: play, a5: play, a6: play, a7: play, a8: play, a9: play, a10: play, a11: play}
  roles: [r]
  tasks:
    - debug: msg="after {{ a9 }} {{ a11 }}"
      register: after
`,
	}
	levels := []struct {
		file  string
		from  int
		value string
	}{
		{"roles/r/defaults/main.yml", 1, "defaults"}, {"roles/r/vars/main.yml", 5, "role_vars"},
		{"vf.yml", 4, "vars_files"},
	}
	for _, l := range levels {
		var b strings.Builder
		for i := l.from; i <= 11; i++ {
			fmt.Fprintf(&b, "a%d: %s\n", i, l.value)
		}
		files[l.file] = b.String()
	}
	var inv strings.Builder
	inv.WriteString("all:\n  hosts:\n    h1:\n")
	for i := 2; i <= 11; i++ {
		fmt.Fprintf(&inv, "      a%d: inventory\n", i)
	}
	files["inventory.yml"] = inv.String()
	recap, err, _ := playTree(t, &runnertest.LocalDialer{}, testtree.Write(t, files),
		runner.PlayOptions{ExtraVars: map[string]any{"a10": "extra"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "defaults inventory play vars_files role_vars block task include include extra fact"
	if got := regField(t, recap, "h1", "shown", "msg"); got != want {
		t.Errorf("inside the include:\n got %v\nwant %s", got, want)
	}
	if got := regField(t, recap, "h1", "after", "msg"); got != "after fact fact" {
		t.Errorf("after the include: got %v, want the set_fact values", got)
	}
}

// include_tasks is decided per host when it runs: the file name from each host's variables,
// its when and loop, its vars set for the included tasks.
func TestIncludeTasksPerHost(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"inventory.yml": "all:\n  hosts:\n    h1: {kind: web}\n    h2: {kind: db}\n    h3: {kind: web}\n",
		"site.yml": `- hosts: all
  gather_facts: false
  tasks:
    - include_tasks: "{{ kind }}.yml"
      vars: {greeting: hello}
    - include_tasks: loop.yml
      loop: [1, 2]
      loop_control: {loop_var: n}
      when: kind == 'web'
`,
		"web.yml":  "- command: echo web {{ greeting }}\n  register: out\n",
		"db.yml":   "- command: echo db {{ greeting }}\n  register: out\n",
		"loop.yml": "- name: item\n  command: echo {{ n }}\n  register: last\n",
	})
	recap, err, rec := playTree(t, &runnertest.LocalDialer{}, dir, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]string{"h1": "web hello", "h2": "db hello", "h3": "web hello"} {
		if got := regField(t, recap, h, "out", "stdout"); got != want {
			t.Errorf("%s included the wrong file: %v, want %q", h, got, want)
		}
	}
	if got := regField(t, recap, "h1", "last", "stdout"); got != "2" {
		t.Errorf("h1's last loop item = %v, want 2", got)
	}
	items := strings.Count(joined(rec.results("h1")), "task_changed item")
	if items != 2 {
		t.Errorf("h1 ran loop.yml %d times, want 2:\n%s", items, joined(rec.results("h1")))
	}
	if got := joined(rec.results("h2")); strings.Contains(got, "item") || !strings.Contains(got, "task_skipped include_tasks") {
		t.Errorf("h2 (when false) ran or did not skip the loop include:\n%s", got)
	}
	if rc := recap.Hosts["h1"]; rc.OK != 6 || rc.Changed != 3 {
		t.Errorf("h1 recap = %+v, want ok=6 changed=3 (each include, and each looped one, is ok, as in Ansible)", *rc)
	}
}

// roles: a role's tasks, handlers, defaults, files and templates; params over defaults; meta
// dependencies run once however many roles need them.
func TestRolesLayout(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"inventory.yml":                "all:\n  hosts:\n    h1:\n",
		"roles/base/tasks/main.yml":    "- name: base\n  command: echo base\n",
		"roles/common/meta/main.yml":   "galaxy_info: {author: me}\ndependencies: [base]\n",
		"roles/common/tasks/main.yaml": "- name: common\n  command: echo common\n",
		"roles/web/meta/main.yml":      "dependencies:\n  - role: base\n",
		"roles/web/defaults/main.yml":  "web_port: 80\nweb_name: default-name\n",
		"roles/web/files/index.html":   "from the role's files\n",
		"roles/web/templates/web.conf": "port={{ web_port }} name={{ web_name }}\n",
		"roles/web/tasks/main.yml": `- copy: {src: index.html, dest: "{{ out }}/index.html"}
- template: {src: web.conf, dest: "{{ out }}/web.conf"}
  notify: restart web
`,
		"roles/web/handlers/main.yml": "- name: restart web\n  command: touch {{ out }}/restarted\n",
		"site.yml": `- hosts: all
  gather_facts: false
  roles:
    - common
    - role: web
      web_port: 8080
`,
	})
	out := t.TempDir()
	_, err, rec := playTree(t, &runnertest.LocalDialer{}, dir, runner.PlayOptions{ExtraVars: map[string]any{"out": out}})
	if err != nil {
		t.Fatal(err)
	}
	got := joined(rec.results("h1"))
	if strings.Count(got, "base : base") != 1 || !strings.Contains(got, "common : common") {
		t.Errorf("base (a dependency of two roles) must run once, then common:\n%s", got)
	}
	for name, want := range map[string]string{"index.html": "from the role's files\n", "web.conf": "port=8080 name=default-name\n"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", name, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "restarted")); err != nil {
		t.Errorf("the role's handler did not run: %v", err)
	}
}

// meta: flush_handlers runs the notified handlers there; end_host takes a host out without
// failing it.
func TestMetaFlushAndEndHost(t *testing.T) {
	recap, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n    h2:\n", `- hosts: all
  gather_facts: false
  tasks:
    - {name: change, command: "true", notify: h}
    - meta: flush_handlers
    - {name: after, command: "true"}
    - meta: end_host
      when: inventory_hostname == 'h2'
    - {name: last, command: "true"}
  handlers:
    - {name: h, command: "true"}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := joined(rec.results("h1")), "task_changed change\ntask_changed h\ntask_changed after\ntask_changed last"; got != want {
		t.Errorf("h1:\n%s\nwant:\n%s", got, want)
	}
	if got := joined(rec.results("h2")); strings.Contains(got, "last") {
		t.Errorf("h2 ran past end_host:\n%s", got)
	}
	if rc := recap.Hosts["h2"]; rc.Failed != 0 || rc.OK != 3 {
		t.Errorf("h2 recap = %+v, want ok=3 and no failure", *rc)
	}
}

// markDialer gives each host a local connection whose $MARK says which host and user it was
// dialled as.
type markDialer struct{ runnertest.LocalDialer }

func (d *markDialer) Dial(ctx context.Context, h *inventory.Host) (runner.Conn, error) {
	if _, err := d.LocalDialer.Dial(ctx, h); err != nil {
		return nil, err
	}
	return &runnertest.LocalConn{Env: []string{"MARK=" + h.Name + "@" + h.User()}}, nil
}

// delegate_to runs a task on another inventory host (its connection), or on this machine for
// localhost, as connection: local does; remote_user applies where the inventory sets no ansible_user; run_once with
// delegate_to registers the one result for every host.
func TestDelegateToRemoteUserRunOnce(t *testing.T) {
	t.Setenv("MARK", "")
	recap, err, _ := run(t, &markDialer{}, "all:\n  hosts:\n    h1: {ansible_user: root}\n    h2:\n    h3:\n", `- hosts: all
  gather_facts: false
  remote_user: deploy
  tasks:
    - {shell: "echo $MARK", register: own}
    - {shell: "echo $MARK", register: deleg, delegate_to: h1}
    - {shell: "echo [$MARK]", register: local, delegate_to: localhost}
    - {shell: "echo $MARK", register: admin, remote_user: admin}
    - {shell: "echo $MARK", register: once, run_once: true, delegate_to: "{{ groups['all'][2] }}"}
    - {shell: "echo [$MARK]", register: conn, connection: local}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"h1": {"own": "h1@root", "deleg": "h1@root", "local": "[]", "admin": "h1@root", "once": "h3@deploy", "conn": "[]"},
		"h2": {"own": "h2@deploy", "deleg": "h1@root", "local": "[]", "admin": "h2@admin", "once": "h3@deploy", "conn": "[]"},
	}
	for h, regs := range want {
		for name, w := range regs {
			if got := regField(t, recap, h, name, "stdout"); got != w {
				t.Errorf("%s %s ran as %v, want %s", h, name, got, w)
			}
		}
	}
}

// ignore_unreachable keeps an unreachable host in the play for that task (ok and ignored, as
// Ansible counts it); the next task without it makes the host unreachable.
func TestIgnoreUnreachable(t *testing.T) {
	d := &runnertest.LocalDialer{Unreachable: map[string]error{"h2": fmt.Errorf("connection refused")}}
	recap, _, rec := run(t, d, "all:\n  hosts:\n    h1:\n    h2:\n", `- hosts: all
  gather_facts: false
  tasks:
    - {name: tolerant, command: "true", ignore_unreachable: true}
    - {name: strict, command: "true"}
    - {name: never, command: "true"}
`, runner.PlayOptions{})
	if rc := recap.Hosts["h2"]; rc.OK != 1 || rc.Ignored != 1 || rc.Unreachable != 1 {
		t.Errorf("h2 recap = %+v, want ok=1 ignored=1 unreachable=1", *rc)
	}
	if got := joined(rec.results("h2")); strings.Contains(got, "never") {
		t.Errorf("h2 ran on after an unreachable task without ignore_unreachable:\n%s", got)
	}
	if rc := recap.Hosts["h1"]; rc.OK != 3 {
		t.Errorf("h1 recap = %+v, want ok=3", *rc)
	}
}

// A host whose rescue fails is counted rescued and failed, as Ansible counts it.
func TestRescuedCountedWhenTheRescueFails(t *testing.T) {
	recap, _, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - block:
        - command: "false"
      rescue:
        - command: "false"
`, runner.PlayOptions{})
	if rc := recap.Hosts["h1"]; rc.Rescued != 1 || rc.Failed != 1 {
		t.Errorf("recap = %+v, want rescued=1 failed=1", *rc)
	}
}

// Play-level environment and tags reach every task; with_dict iterates {key, value} items.
func TestPlayEnvironmentTagsAndWithDict(t *testing.T) {
	recap, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  environment: {GREETING: "hi {{ inventory_hostname }}"}
  tags: [deploy]
  tasks:
    - {command: "sh -c 'echo $GREETING'", register: env}
    - shell: echo {{ item.key }}={{ item.value }}
      with_dict: {a: 1, b: 2}
      register: pairs
`, runner.PlayOptions{Tags: []string{"deploy"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := regField(t, recap, "h1", "env", "stdout"); got != "hi h1" {
		t.Errorf("play environment: got %v", got)
	}
	res, _ := regField(t, recap, "h1", "pairs", "results").([]any)
	var got []string
	for _, r := range res {
		got = append(got, r.(map[string]any)["stdout"].(string))
	}
	if strings.Join(got, " ") != "a=1 b=2" {
		t.Errorf("with_dict ran %v, want a=1 b=2 (and both tasks selected by the play's tag: %s)", got, joined(rec.results("h1")))
	}
}

// vars_files takes a list of candidates whose names use host variables (the first that exists
// is read); include_role's vars_from and defaults_from are the role's alone; a role with
// allow_duplicates runs each time it is listed; include_role is not counted in the recap.
// (ansible-playbook 2.14 gives the same values and counts.)
func TestVarsFilesIncludeRoleScopeAllowDuplicates(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"inventory.yml":            "all:\n  hosts:\n    h1: {kind: web}\n    h2: {kind: db}\n",
		"vars/web.yml":             "port: 8080\n",
		"vars/default.yml":         "port: 80\n",
		"roles/r/vars/alt.yml":     "r_var: alt-var\n",
		"roles/r/defaults/alt.yml": "r_def: alt-def\n",
		"roles/r/tasks/main.yml":   "- debug: msg=\"{{ r_var }} {{ r_def }}\"\n  register: inside\n",
		"roles/d/meta/main.yml":    "allow_duplicates: true\n",
		"roles/d/tasks/main.yml":   "- name: dup\n  debug: msg=dup\n",
		"site.yml": `- hosts: all
  gather_facts: false
  vars_files:
    - ["vars/{{ kind }}.yml", vars/default.yml]
  roles: [d, d]
  tasks:
    - debug: msg="{{ port }}"
      register: port
    - include_role: {name: r, vars_from: alt, defaults_from: alt}
    - debug: msg="{{ r_var | default('hidden') }} {{ r_def | default('hidden') }}"
      register: after
`,
	})
	recap, err, rec := playTree(t, &runnertest.LocalDialer{}, dir, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for h, port := range map[string]int{"h1": 8080, "h2": 80} {
		if got := regField(t, recap, h, "port", "msg"); fmt.Sprint(got) != fmt.Sprint(port) {
			t.Errorf("%s port = %v, want %d", h, got, port)
		}
		if got := regField(t, recap, h, "inside", "msg"); got != "alt-var alt-def" {
			t.Errorf("%s inside the role: %v", h, got)
		}
		if got := regField(t, recap, h, "after", "msg"); got != "hidden hidden" {
			t.Errorf("%s after the role: %v, want its vars gone", h, got)
		}
		if n := strings.Count(joined(rec.results(h)), "d : dup"); n != 2 {
			t.Errorf("%s ran the allow_duplicates role %d times, want 2", h, n)
		}
		if rc := recap.Hosts[h]; rc.OK != 5 {
			t.Errorf("%s recap = %+v, want ok=5", h, *rc)
		}
	}
}

// A play for localhost runs on this machine when the inventory has no such host (Ansible's
// implicit localhost); a role's handler may be notified as "role : handler", and a handler may
// be an include_tasks.
func TestImplicitLocalhostAndRoleHandlers(t *testing.T) {
	t.Setenv("MARK", "")
	dir := testtree.Write(t, map[string]string{
		"inventory.yml":             "all:\n  hosts:\n    h1:\n",
		"roles/r/tasks/main.yml":    "- {command: \"true\", notify: \"r : restart\"}\n",
		"roles/r/handlers/main.yml": "- name: restart\n  include_tasks: restart.yml\n",
		"roles/r/tasks/restart.yml": "- {shell: \"echo [$MARK]\", register: restarted}\n",
		"site.yml":                  "- hosts: localhost\n  gather_facts: false\n  roles: [r]\n",
	})
	recap, err, _ := playTree(t, &markDialer{}, dir, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := regField(t, recap, "localhost", "restarted", "stdout"); got != "[]" {
		t.Errorf("the handler ran as %v, want [] (a local connection, no dial)", got)
	}
}

// include_vars reads a role's vars/ file (by a templated name) or one beside the playbook, under
// name: when given; its values are templated with the host's variables.
func TestIncludeVars(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"inventory.yml":           "all:\n  hosts:\n    h1: {os: debian}\n",
		"roles/r/vars/debian.yml": "pkg: apt-{{ inventory_hostname }}\n",
		"roles/r/tasks/main.yml":  "- include_vars: \"{{ os }}.yml\"\n- include_vars: {file: extra.yml, name: extra}\n- debug: msg=\"{{ pkg }} {{ extra.size }}\"\n  register: out\n",
		"extra.yml":               "size: 3\n",
		"site.yml":                "- hosts: all\n  gather_facts: false\n  roles: [r]\n",
	})
	recap, err, _ := playTree(t, &runnertest.LocalDialer{}, dir, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := regField(t, recap, "h1", "out", "msg"); got != "apt-h1 3" {
		t.Errorf("msg = %v, want apt-h1 3", got)
	}
}

// set_fact values and registered results outlive their play.
func TestFactsOutliveTheirPlay(t *testing.T) {
	recap, err, _ := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: controllers
  gather_facts: false
  tasks:
    - set_fact: {from_first: kept}
    - {command: echo hi, register: said}
- hosts: all
  gather_facts: false
  tasks:
    - debug: msg="{{ from_first | default('none') }} {{ said.stdout | default('-') }}"
      register: second
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]string{"h1": "kept hi", "h3": "none -"} {
		if got := regField(t, recap, h, "second", "msg"); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
}

// loop_control: index_var and extended (ansible_loop) are set for each item and registered with
// it, label is accepted (it is only shown), as ansible-playbook 2.14 registers them.
func TestLoopControl(t *testing.T) {
	recap, err, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - debug: msg="{{ i }}/{{ ansible_loop.length }} {{ item }}"
      loop: [a, b]
      loop_control: {label: "L{{ item }}", index_var: i, extended: true, pause: 0}
      register: r
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := regField(t, recap, "h1", "r", "results").([]any)
	if len(res) != 2 {
		t.Fatalf("results = %v", res)
	}
	second := res[1].(map[string]any)
	loop, _ := second["ansible_loop"].(map[string]any)
	if second["msg"] != "1/2 b" || loop["first"] != false || second["i"] != 1 || second["ansible_index_var"] != "i" ||
		second["ansible_loop_var"] != "item" || loop["index"] != 2 || loop["previtem"] != "a" {
		t.Errorf("second item registered %v", second)
	}
}
