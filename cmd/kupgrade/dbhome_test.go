package main

import "testing"

// The default database: the system's state folder as root, the user's otherwise.
func TestDefaultDatabaseHome(t *testing.T) {
	tests := []struct {
		root      bool
		xdg, home string
		want      string
	}{
		{true, "/home/op/.state", "/root", "/var/lib/kupgrade/kupgrade.db"},
		{false, "/home/op/.state", "/home/op", "/home/op/.state/kupgrade/kupgrade.db"},
		{false, "", "/home/op", "/home/op/.local/state/kupgrade/kupgrade.db"},
		{false, "relative/state", "/home/op", "/home/op/.local/state/kupgrade/kupgrade.db"},
	}
	for _, tc := range tests {
		if got := defaultDBFor(tc.root, tc.xdg, tc.home); got != tc.want {
			t.Errorf("defaultDBFor(%v, %q, %q) = %q, want %q", tc.root, tc.xdg, tc.home, got, tc.want)
		}
	}
}
