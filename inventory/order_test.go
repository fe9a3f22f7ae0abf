package inventory

import (
	"path/filepath"
	"slices"
	"testing"
)

// groups['x'] lists a group's own hosts first, in the order written, then its children's, as
// ansible-core 2.14 gives them (checked with ansible-playbook: a debug of groups), not the
// inventory's host order; all keeps the host order. group_by adds to a group after its own.
func TestGroupMembersInAnsibleOrder(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": `
all:
  hosts:
    z1:
  children:
    nodes:
      hosts:
        n1:
        n2:
    cps:
      hosts:
        cp1:
        n2:
    cluster:
      hosts:
        solo:
      children:
        cps:
        nodes:
`})
	for g, want := range map[string][]string{
		"cluster": {"solo", "cp1", "n2", "n1"},
		"cps":     {"cp1", "n2"},
		"all":     {"z1", "n1", "n2", "cp1", "solo"},
	} {
		if got := inv.Groups[g]; !slices.Equal(got, want) {
			t.Errorf("Groups[%q] = %v, want %v", g, got, want)
		}
	}
	if _, err := inv.AddToGroup("n1", "web", []string{"cps"}); err != nil {
		t.Fatal(err)
	}
	if got, want := inv.Groups["cps"], []string{"cp1", "n2", "n1"}; !slices.Equal(got, want) {
		t.Errorf("after group_by, Groups[cps] = %v, want %v", got, want)
	}
}

// A group's key other than hosts, children and vars is skipped with a warning naming its file
// and line, as ansible-inventory 2.14 skips it ("Skipping unexpected key"): the rest loads.
func TestUnexpectedGroupKeySkippedWithWarning(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": `
all:
  ansible_user: admin
  children:
    web:
      hsots:
        w1:
      hosts:
        w2:
`})
	if got, want := hostNames(inv.Hosts), []string{"w2"}; !slices.Equal(got, want) {
		t.Errorf("hosts = %v, want %v", got, want)
	}
	if _, ok := inv.Hosts[0].Var("ansible_user"); ok {
		t.Error("ansible_user written straight in all was read as a variable")
	}
	want := []string{
		`inventory.yml:3:3: unknown key "ansible_user" in group "all"; a group holds only hosts:, children: and vars:; put variables under vars: (skipped, as Ansible skips it)`,
		`inventory.yml:6:7: unknown key "hsots" in group "web"; did you mean "hosts"? (skipped, as Ansible skips it)`,
	}
	var got []string
	for _, w := range inv.Warnings {
		got = append(got, filepath.Base(w))
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings = %q, want %q", inv.Warnings, want)
	}
}
