package modules

import "testing"

// The commands ansible-core's group module runs on Linux, in its argument order.
func TestGroupCommandIsAnsibles(t *testing.T) {
	for _, c := range []struct {
		args   map[string]any
		exists bool
		gid    int
		want   string
	}{
		{map[string]any{"name": "web"}, false, 0, "groupadd web"},
		{map[string]any{"name": "web", "gid": 1200, "non_unique": true, "system": true}, false, 0, "groupadd -g 1200 -o -r web"},
		{map[string]any{"name": "web", "gid": 1200}, true, 1200, ""},
		{map[string]any{"name": "web", "gid": "1300", "system": true}, true, 1200, "groupmod -g 1300 web"},
		{map[string]any{"name": "web", "system": true}, true, 1200, ""},
		{map[string]any{"name": "web", "state": "absent"}, true, 1200, "groupdel web"},
		{map[string]any{"name": "web", "state": "absent"}, false, 0, ""},
	} {
		if got := groupCommand(c.args, c.exists, c.gid); got != c.want {
			t.Errorf("%v (exists %v, gid %d): %q, want %q", c.args, c.exists, c.gid, got, c.want)
		}
	}
}
