package inventory

import (
	"testing"
)

// TestPrecedence pins Ansible's variable precedence, one rule per case: each case sets the
// variable "v" in several places and expects the winner.
func TestPrecedence(t *testing.T) {
	const nested = `
all:
  vars: {v: inv_all}
  children:
    parent:
      vars: {v: inv_parent}
      children:
        child:
          vars: {v: inv_child}
          hosts:
            h: %s
`
	tests := []struct {
		name  string
		files map[string]string
		want  any
	}{
		{"child group beats parent group beats all", map[string]string{
			"inventory.yml": fmtInv(nested, "")}, "inv_child"},
		{"inline host var beats every group", map[string]string{
			"inventory.yml": fmtInv(nested, "{v: inv_host}")}, "inv_host"},
		{"group_vars/all beats group vars written in the inventory", map[string]string{
			"inventory.yml":      fmtInv(nested, ""),
			"group_vars/all.yml": "v: gv_all\n"}, "gv_all"},
		{"group_vars/child beats group_vars/parent beats group_vars/all", map[string]string{
			"inventory.yml":         fmtInv(nested, ""),
			"group_vars/all.yml":    "v: gv_all\n",
			"group_vars/parent.yml": "v: gv_parent\n",
			"group_vars/child.yml":  "v: gv_child\n"}, "gv_child"},
		{"inline host var beats group_vars files", map[string]string{
			"inventory.yml":        fmtInv(nested, "{v: inv_host}"),
			"group_vars/child.yml": "v: gv_child\n"}, "inv_host"},
		{"host_vars beats inline host var", map[string]string{
			"inventory.yml":   fmtInv(nested, "{v: inv_host}"),
			"host_vars/h.yml": "v: hv\n"}, "hv"},
		{"group_vars folder: files merge in name order", map[string]string{
			"inventory.yml":               fmtInv(nested, ""),
			"group_vars/child/10-a.yml":   "v: first\n",
			"group_vars/child/20-b.yaml":  "v: second\n",
			"group_vars/child/.hidden":    "v: hidden\n",
			"group_vars/child/30-c.yml~":  "v: backup\n",
			"group_vars/child/README.txt": "v: not yaml by name\n"}, "second"},
		{"group_vars folder: subfolders are read", map[string]string{
			"inventory.yml":                fmtInv(nested, ""),
			"group_vars/child/a.yml":       "v: top\n",
			"group_vars/child/b/inner.yml": "v: nested\n"}, "nested"},
		{"NAME, NAME.yml, NAME.yaml, NAME.json: later ones win", map[string]string{
			"inventory.yml":        fmtInv(nested, ""),
			"host_vars/h":          "v: bare\n",
			"host_vars/h.yml":      "v: yml\n",
			"host_vars/h.json":     `{"v": "json"}`,
			"group_vars/child.yml": "v: gv\n"}, "json"},
		{"files for unknown hosts are ignored", map[string]string{
			"inventory.yml":       fmtInv(nested, ""),
			"host_vars/other.yml": "v: other\n"}, "inv_child"},
		{"empty vars file changes nothing", map[string]string{
			"inventory.yml":   fmtInv(nested, ""),
			"host_vars/h.yml": "# nothing yet\n"}, "inv_child"},
		{"same depth: the later name wins", map[string]string{
			"inventory.yml": `
all:
  children:
    beta: {vars: {v: beta}, hosts: {h: }}
    alpha: {vars: {v: alpha}, hosts: {h: }}
`}, "beta"},
		{"same depth: ansible_group_priority beats the name", map[string]string{
			"inventory.yml": `
all:
  children:
    beta: {vars: {v: beta}, hosts: {h: }}
    alpha: {vars: {v: alpha, ansible_group_priority: 10}, hosts: {h: }}
`}, "alpha"},
		{"depth is the longest path from all", map[string]string{
			"inventory.yml": `
all:
  children:
    zz_shallow: {vars: {v: shallow}, hosts: {h: }}
    a: {children: {b: {children: {aa_deep: {vars: {v: deep}, hosts: {h: }}}}}}
`}, "deep"},
		{"a host written twice: the later inline vars win", map[string]string{
			"inventory.yml": `
all:
  children:
    g1: {hosts: {h: {v: first}}}
    g2: {hosts: {h: {v: second}}}
`}, "second"},
		{"a group written twice: its vars merge, later wins", map[string]string{
			"inventory.yml": `
all:
  children:
    p1: {children: {shared: {vars: {v: first}, hosts: {h: }}}}
    p2: {children: {shared: {vars: {v: second}}}}
`}, "second"},
		{"YAML merge keys: keys written beside << win", map[string]string{
			"inventory.yml": `
all:
  vars:
    base: &base {v: merged, w: 1}
  hosts:
    h:
      <<: *base
      v: own
`}, "own"},
		{"maps replace, they do not merge", map[string]string{
			"inventory.yml":   "all:\n  vars: {v: {a: 1, b: 2}}\n  hosts: {h: }\n",
			"host_vars/h.yml": "v: {b: 3}\n"}, map[string]any{"b": 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := mustLoad(t, tt.files)
			h, ok := inv.Host("h")
			if !ok {
				t.Fatal("host h not found")
			}
			got, _ := h.Var("v")
			if !equalJSON(got, tt.want) {
				t.Errorf("v = %#v, want %#v", got, tt.want)
			}
		})
	}
}
