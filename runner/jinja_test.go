package runner_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// jinjaTemplate uses the statements a role's template does; want is what Ansible 2.14's
// template rendering (Templar.do_template) makes of it: trim_blocks, and as many newlines at
// the end as the file has.
const (
	jinjaTemplate = `# {{ ansible_managed | default('managed by kupgrade') }}
{% for h in groups['all'] %}
{{ h }} {{ hostvars[h].ip | default('none') }}{{ ' (me)' if h == inventory_hostname else '' }}
{% endfor %}
{% if port is defined and port > 1000 %}
port={{ port }}
{% endif %}
{% set total = groups['all'] | length %}
hosts={{ total }} first={{ groups['all'] | first }}
{%- for k, v in labels | dictsort %} {{ k }}={{ v }}{% endfor %}

`
	jinjaWant = "# Ansible managed\nh1 10.0.0.1 (me)\nh2 none\nport=6443\nhosts=2 first=h1 a=1 b=2\n\n"
)

func TestTemplateModuleRendersStatements(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "conf.j2")
	if err := os.WriteFile(src, []byte(jinjaTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	inv := "all:\n  hosts:\n    h1:\n      ip: 10.0.0.1\n    h2:\n"
	pb := `- hosts: h1
  gather_facts: false
  vars:
    port: 6443
    labels: {b: 2, a: 1}
  tasks:
    - template: {src: ` + src + `, dest: ` + dir + `/conf}
`
	if _, err, _ := run(t, &runnertest.LocalDialer{}, inv, pb, runner.PlayOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "conf")); err != nil || string(b) != jinjaWant {
		t.Errorf("conf = %q, %v\nwant %q", b, err, jinjaWant)
	}
}

// TestTaskVarsLazy: task vars may use each other in any order and the loop's item.
func TestTaskVarsLazy(t *testing.T) {
	_, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: each
      debug: {msg: "{{ line }}"}
      loop: [a, b]
      vars:
        line: "{{ prefix }}-{{ item }}"
        prefix: "{{ inventory_hostname }}"
      register: out
    - name: show
      debug: {msg: "{{ out.results | map(attribute='msg') | join(',') }}"}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := rec.find("h1", "show"); e.Msg != "h1-a,h1-b" {
		t.Errorf("msg = %q", e.Msg)
	}
}
