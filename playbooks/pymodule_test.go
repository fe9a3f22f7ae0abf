package playbooks

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/testtree"
)

// A module kupgrade has not built in runs from its Python source when there is one: a
// library/ folder beside the playbook or inside the role; arguments are the module's to check.
func TestPythonModuleFromLibrary(t *testing.T) {
	mod := "from ansible.module_utils.basic import AnsibleModule\nAnsibleModule(argument_spec={})\n"
	dir := testtree.Write(t, map[string]string{
		"site.yml":                    "- hosts: all\n  roles: [r]\n  tasks:\n    - my_mod: {any: 1, thing: x}\n    - ansible.legacy.my_mod: a=1 b=2\n",
		"library/my_mod.py":           mod,
		"roles/r/tasks/main.yml":      "- role_mod:\n",
		"roles/r/library/role_mod.py": mod,
	})
	pb, err := Load(filepath.Join(dir, "site.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var tasks []*Task
	var walk func([]*Task)
	walk = func(ts []*Task) {
		for _, x := range ts {
			walk(x.Block)
			if !x.IsBlock() {
				tasks = append(tasks, x)
			}
		}
	}
	walk(pb.Plays[0].Tasks)
	if len(tasks) != 3 {
		t.Fatalf("tasks = %v", tasks)
	}
	role := tasks[0]
	tasks = tasks[1:]
	if role.Module != "role_mod" || role.ModuleSource != filepath.Join(dir, "roles/r/library/role_mod.py") {
		t.Errorf("role task = %q from %q", role.Module, role.ModuleSource)
	}
	for _, task := range tasks {
		if task.Module != "my_mod" || task.ModuleSource != filepath.Join(dir, "library/my_mod.py") || len(task.Args) != 2 {
			t.Errorf("task = %q from %q with %v", task.Module, task.ModuleSource, task.Args)
		}
	}
}

// A missing module is refused naming it and every place looked in; a Python file that is an
// action of Ansible's controller (no AnsibleModule, no main) is refused as missing.
func TestPythonModuleMissing(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"site.yml":             "- hosts: all\n  tasks:\n    - my_action: {}\n",
		"library/my_action.py": "DOCUMENTATION = 'an action plugin does the work'\n",
	})
	_, err := Load(filepath.Join(dir, "site.yml"))
	want := `module "my_action" is not supported by kupgrade (a task); it runs apt, `
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "found none named my_action in "+filepath.Join(dir, "library/my_action.py")) {
		t.Errorf("error = %v", err)
	}
}

// A short name ansible-core moved to a collection runs from that collection, as Ansible
// redirects it (sysctl is ansible.posix.sysctl).
func TestPythonModuleRedirect(t *testing.T) {
	if coreRedirect("sysctl") == "" {
		t.Skip("ansible-core is not installed (Debian package ansible-core)")
	}
	src, _ := (&decoder{}).pyModule("sysctl")
	if want := "ansible_collections/ansible/posix/plugins/modules/sysctl.py"; !strings.HasSuffix(src, want) {
		t.Skipf("sysctl = %q: ansible.posix is not installed (Debian package ansible)", src)
	}
	if src2, _ := (&decoder{}).pyModule("ansible.builtin.sysctl"); src2 != src {
		t.Errorf("ansible.builtin.sysctl = %q, want %q", src2, src)
	}
}
