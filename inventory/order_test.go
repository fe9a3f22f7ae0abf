package inventory

import (
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
