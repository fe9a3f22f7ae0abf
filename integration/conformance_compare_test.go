//go:build integration

package integration_test

import (
	"slices"
	"strings"
	"testing"
)

// The conformance suite's own comparison must see the differences a user would: these run
// without Ansible or sshd.
func TestConformanceRecapsParse(t *testing.T) {
	t.Parallel()
	ansible := []byte(`{"plays": [], "stats": {"h1": {"changed": 1, "failures": 2, "ignored": 0, "ok": 3,
		"rescued": 0, "skipped": 4, "unreachable": 0}}}`)
	kupgrade := []byte(`{"event":"task_ok","host":"h1","task":"x"}
{"event":"play_recap","host":"","task":"","recap":{"h1":{"ok":1,"changed":1,"failed":0,"skipped":4,"unreachable":0,"rescued":0,"ignored":0}}}
{"event":"play_recap","host":"","task":"","recap":{"h1":{"ok":2,"changed":0,"failed":2,"skipped":0,"unreachable":0,"rescued":0,"ignored":0}}}
`)
	want := "ok=3 changed=1 unreachable=0 failed=2 skipped=4 rescued=0 ignored=0"
	for name, out := range map[string][]byte{"ansible": ansible, "kupgrade (two plays)": kupgrade} {
		if got := recapLine(parseRecap(out)["h1"]); got != want {
			t.Errorf("%s recap = %s, want %s", name, got, want)
		}
	}
}

func TestConformanceDiffs(t *testing.T) {
	t.Parallel()
	want := outcome{
		Recap: map[string]map[string]int{"h1": {"ok": 2}},
		Files: map[string]string{
			"h1/r.json": "-rw-r--r-- " + normContent("r.json", `{"c": {"rc": 0, "cmd": ["true"], "start": "12:00"}, "n": 1}`),
			"h1/conf":   "-rw-r--r-- a=1\n",
			"h1/dir":    "dir -rwxr-x---",
		},
	}
	got := outcome{
		Recap: map[string]map[string]int{"h1": {"ok": 2}},
		Files: map[string]string{
			"h1/r.json": "-rw-r--r-- " + normContent("r.json", `{"n": 1, "c": {"start": "12:01", "rc": 0}}`),
			"h1/conf":   "-rw-r--r-- a=1\n",
			"h1/dir":    "dir -rwxr-xr-x",
		},
	}
	diffs := compareOutcomes(got, want)
	wantDiffs := []string{
		"file h1/dir:\n  kupgrade \"dir -rwxr-xr-x\"\n  ansible  \"dir -rwxr-x---\"",
		`h1/r.json:.c.cmd: missing with kupgrade, ansible has ["true"]`, // start differs, but is volatile
	}
	if !slices.Equal(diffs, wantDiffs) {
		t.Errorf("diffs:\n%s\nwant:\n%s", strings.Join(diffs, "\n"), strings.Join(wantDiffs, "\n"))
	}
	got.Failed = true
	got.Recap["h1"]["ok"] = 1
	if diffs := compareOutcomes(got, want); len(diffs) < 4 || !strings.HasPrefix(diffs[0], "run failed") ||
		!strings.HasPrefix(diffs[1], "recap h1: kupgrade ok=1") {
		t.Errorf("a failed run with another recap gave:\n%s", strings.Join(diffs, "\n"))
	}
}
