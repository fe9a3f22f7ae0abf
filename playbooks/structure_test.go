package playbooks

import (
	"github.com/kupgrade/kupgrade/internal/testtree"

	"path/filepath"
	"strings"
	"testing"
)

// names lists the labels of tasks, blocks opened, as the runner would meet them.
func names(ts []*Task) []string {
	var out []string
	for _, t := range ts {
		if t.IsBlock() {
			out = append(out, names(t.Block)...)
			continue
		}
		if t.Include != nil && t.Include.Tasks != nil {
			out = append(out, t.Label()+"{"+strings.Join(names(t.Include.Tasks), ",")+"}")
			continue
		}
		out = append(out, t.Label())
	}
	return out
}

func TestImportsAndRolesLoadInOrder(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"site.yml": `- import_playbook: plays/first.yml
  vars: {from_import: true}
- hosts: all
  roles: [{role: web, when: x is defined, tags: [w]}]
  pre_tasks: [{name: pre, ping: }]
  tasks:
    - import_tasks: tasks/a.yml
    - include_tasks: "tasks/{{ kind }}.yml"
    - include_role: {name: web, tasks_from: extra}
`,
		"plays/first.yml":             "- hosts: all\n  tasks: [{name: first, ping: }]\n",
		"tasks/a.yml":                 "- name: a\n  ping:\n- import_tasks: b.yml\n",
		"tasks/b.yml":                 "- name: b\n  ping:\n",
		"roles/web/tasks/main.yml":    "- name: web\n  ping:\n",
		"roles/web/tasks/extra.yaml":  "- name: extra\n  ping:\n",
		"roles/web/handlers/main.yml": "- name: reload\n  ping:\n",
		"roles/web/defaults/main.yml": "port: 80\n",
	})
	pb, err := Load(filepath.Join(dir, "site.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pb.Plays) != 2 || pb.Plays[0].Vars["from_import"] != true {
		t.Fatalf("plays = %d, first vars %v; want the imported play first, with the import's vars", len(pb.Plays), pb.Plays[0].Vars)
	}
	p := pb.Plays[1]
	got := strings.Join(names(p.Tasks), " ")
	want := "pre flush_handlers web a b include_tasks include_role{extra}"
	if got != want {
		t.Errorf("tasks = %s\nwant   %s", got, want)
	}
	if len(p.Handlers) != 1 || p.Handlers[0].Name != "reload" || p.RoleDefaults["port"] != 80 {
		t.Errorf("handlers %v, role defaults %v: want the role's", names(p.Handlers), p.RoleDefaults)
	}
	role := p.Tasks[2]
	if len(role.When) != 1 || len(role.Tags) != 1 || role.Block[0].Role == nil {
		t.Errorf("the role's block: when %v tags %v; want the roles: entry's", role.When, role.Tags)
	}
}

// A role is found in roles/ beside the playbook, then ANSIBLE_ROLES_PATH, then roles_path of
// ansible.cfg; the role's meta dependencies come first.
func TestRoleSearchPath(t *testing.T) {
	shared := testtree.Write(t, map[string]string{
		"envroles/fromenv/tasks/main.yml": "- name: fromenv\n  ping:\n",
		"cfgroles/fromcfg/tasks/main":     "- name: fromcfg\n  ping:\n",
		"cfgroles/fromcfg/meta/main.yml":  "dependencies: [fromenv]\n",
		"ansible.cfg":                     "[defaults]\nroles_path = cfgroles\n",
	})
	dir := testtree.Write(t, map[string]string{"site.yml": "- hosts: all\n  roles: [fromcfg, fromenv]\n"})
	t.Setenv("ANSIBLE_ROLES_PATH", filepath.Join(shared, "envroles"))
	t.Setenv("ANSIBLE_CONFIG", filepath.Join(shared, "ansible.cfg"))
	pb, err := Load(filepath.Join(dir, "site.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// fromenv runs once: as fromcfg's dependency, not again as a role of the play.
	if got := strings.Join(names(pb.Plays[0].Tasks), " "); got != "fromenv fromcfg" {
		t.Errorf("tasks = %s, want fromenv fromcfg", got)
	}
}

// A mistake in an imported file names that file, its line and column.
func TestErrorsNameTheImportedFile(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"task file", map[string]string{
			"site.yml": "- hosts: all\n  tasks:\n    - import_tasks: inc.yml\n",
			"inc.yml":  "- name: ok\n  ping:\n- name: bad\n  acme.tools.ufw: {rule: allow}\n",
		}, `inc.yml:4:3: module "acme.tools.ufw" is not supported by kupgrade (task "bad")`},
		{"role tasks", map[string]string{
			"site.yml":               "- hosts: all\n  roles: [r]\n",
			"roles/r/tasks/main.yml": "- shell: ls\n  debugger: always\n",
		}, `roles/r/tasks/main.yml:2:3: task keyword "debugger" is not supported by kupgrade`},
		{"cycle", map[string]string{
			"site.yml": "- hosts: all\n  tasks:\n    - import_tasks: a.yml\n",
			"a.yml":    "- import_tasks: a.yml\n",
		}, `a.yml:1:17: import_tasks `},
		{"missing vars file", map[string]string{
			"site.yml": "- hosts: all\n  vars_files: [nope.yml]\n  tasks: []\n",
		}, `site.yml:2:16: vars_files: nope.yml not found`},
		{"unknown role option", map[string]string{
			"site.yml":               "- hosts: all\n  tasks:\n    - include_role: {name: r, apply: {tags: x}}\n",
			"roles/r/tasks/main.yml": "- ping:\n",
		}, `site.yml:3:31: include_role option "apply" is not supported by kupgrade`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testtree.Write(t, c.files)
			_, err := Load(filepath.Join(dir, "site.yml"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v\nwant it to contain %s", err, c.want)
			}
		})
	}
}

// Values read as Ansible's YAML 1.1 reader reads them: a plain yes/on is true, a quoted one a
// string.
func TestYAML11Booleans(t *testing.T) {
	pb, err := Parse("pb.yml", []byte("- hosts: all\n  vars: {a: yes, b: \"yes\", c: Off, d: [on, no]}\n  tasks: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	v := pb.Plays[0].Vars
	if v["a"] != true || v["b"] != "yes" || v["c"] != false || v["d"].([]any)[0] != true || v["d"].([]any)[1] != false {
		t.Errorf("vars = %#v", v)
	}
}
