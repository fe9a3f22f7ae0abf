package main

import (
	"runtime/debug"
	"testing"
)

// A binary built without the Makefile's -ldflags names the commit Go recorded in it.
func TestVCSCommit(t *testing.T) {
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "d90ea19c0ffee"}, {Key: "vcs.modified", Value: "false"}}, "d90ea19"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "d90ea19c0ffee"}, {Key: "vcs.modified", Value: "true"}}, "d90ea19-dirty"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, "none"},
		{nil, "none"},
	} {
		if got := vcsCommit(&debug.BuildInfo{Settings: c.settings}); got != c.want {
			t.Errorf("vcsCommit(%v) = %q, want %q", c.settings, got, c.want)
		}
	}
}
