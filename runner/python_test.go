package runner_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/internal/testtree"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// kvModule is a library/ module as users write them: AnsibleModule, check mode, facts.
const kvModule = `from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_text


def main():
    m = AnsibleModule(argument_spec=dict(path=dict(type='path', required=True), value=dict(type='str')),
                      supports_check_mode=True)
    p, v = m.params['path'], m.params['value']
    try:
        old = open(p).read()
    except IOError:
        old = None
    changed = old != v
    if changed and not m.check_mode:
        open(p, 'w').write(v)
    m.exit_json(changed=changed, old=to_text(old or ''), ansible_facts=dict(kv_seen=v))


if __name__ == '__main__':
    main()
`

// TestPythonModules runs a library/ module and ansible-core's own stat through the host's
// Python: the file is written, the results registered, facts set, check mode honoured, and the
// module's own argument checks fail the task with Ansible's message.
func TestPythonModules(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is missing")
	}
	if len(pyCore()) == 0 {
		t.Skip("ansible-core is not installed (Debian package ansible-core)")
	}
	dir := testtree.Write(t, map[string]string{
		"inventory.yml": "all:\n  hosts:\n    h1:\n",
		"library/kv.py": kvModule,
		"site.yml": `- hosts: all
  gather_facts: false
  tasks:
    - kv: {path: "{{ out }}/kv", value: one}
      register: first
    - kv: {path: "{{ out }}/kv", value: one}
      register: again
    - kv: {path: "{{ out }}/kv", value: two}
      check_mode: true
      register: checked
    - ansible.builtin.stat: {path: "{{ out }}/kv"}
      register: st
    - debug: {msg: "{{ kv_seen }} {{ st.stat.size }} {{ first.changed }} {{ again.changed }} {{ checked.changed }}"}
      register: said
    - kv: {value: x}
      ignore_errors: true
      register: bad
`,
	})
	out := t.TempDir()
	i, err := inventory.Load(filepath.Join(dir, "inventory.yml"))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := playbooks.Load(filepath.Join(dir, "site.yml"))
	if err != nil {
		t.Fatal(err)
	}
	r := runner.New(&runnertest.LocalDialer{}, runner.Options{})
	defer r.Close()
	recap, err := r.Play(t.Context(), pb, i, runner.PlayOptions{ExtraVars: map[string]any{"out": out}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "kv")); string(b) != "one" {
		t.Errorf("kv wrote %q, want one (check mode must not write two)", b)
	}
	reg := recap.Registered["h1"]
	if got := reg["said"].(map[string]any)["msg"]; got != "two 3 True False True" {
		t.Errorf("debug said %q, want the facts, stat's size and changed as Ansible reports them", got)
	}
	if got := reg["bad"].(map[string]any); got["failed"] != true || got["msg"] != "missing required arguments: path" {
		t.Errorf("a missing argument: %v", got)
	}
}

func pyCore() []string {
	m, _ := filepath.Glob("/usr/lib/python3/dist-packages/ansible/module_utils/basic.py")
	return m
}
