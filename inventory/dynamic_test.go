package inventory

import (
	"reflect"
	"testing"
)

// TestAddToGroup: group_by's effect on the inventory. The host joins the new group and its
// parents (made when missing), leaves ungrouped, patterns select the group at once; a second
// call changes nothing; an unknown host is an error naming it.
func TestAddToGroup(t *testing.T) {
	inv := mustLoad(t, map[string]string{"inventory.yml": "all:\n  hosts:\n    a:\n    b:\n    c:\n  children:\n    web:\n      hosts:\n        c:\n"})
	changed, err := inv.AddToGroup("b", "kind_x", []string{"kinds"})
	if err != nil || !changed {
		t.Fatalf("first AddToGroup: changed %v, %v", changed, err)
	}
	if changed, _ := inv.AddToGroup("b", "kind_x", []string{"kinds"}); changed {
		t.Error("the same group again: changed")
	}
	if changed, _ := inv.AddToGroup("c", "kind_x", []string{"all"}); !changed {
		t.Error("another host joining: not changed")
	}
	for pattern, want := range map[string][]string{"kind_x": {"b", "c"}, "kinds": {"b", "c"}, "ungrouped": {"a"}, "kinds:!web": {"b"}} {
		got, err := inv.Select(pattern)
		if err != nil || !reflect.DeepEqual(hostNames(got), want) {
			t.Errorf("Select(%q) = %v, %v; want %v", pattern, hostNames(got), err, want)
		}
	}
	b, _ := inv.Host("b")
	if want := []string{"all", "kind_x", "kinds"}; !reflect.DeepEqual(b.Groups, want) {
		t.Errorf("b's groups = %v, want %v", b.Groups, want)
	}
	if _, err := inv.AddToGroup("zz", "g", nil); err == nil || err.Error() != `group_by: host "zz" is not in the inventory` {
		t.Errorf("unknown host: %v", err)
	}
}
