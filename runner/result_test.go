package runner_test

import (
	"testing"

	"github.com/kupgrade/kupgrade/runner"
)

func TestResultOf(t *testing.T) {
	cases := []struct {
		name    string
		in      any
		rc      int // -1: no rc
		out     runner.TaskResult
		nonZero bool
	}{
		{"command failed", map[string]any{"rc": 2, "stdout": "o", "stderr": "e", "msg": "non-zero return code", "failed": true, "changed": true},
			2, runner.TaskResult{Stdout: "o", Stderr: "e", Msg: "non-zero return code", Failed: true, Changed: true}, true},
		{"command ok", map[string]any{"rc": 0, "stdout": "Kubernetes v1.30.2\n"}, 0, runner.TaskResult{Stdout: "Kubernetes v1.30.2\n"}, false},
		{"skipped, no command", map[string]any{"skipped": true, "msg": "when false"}, -1, runner.TaskResult{Skipped: true, Msg: "when false"}, false},
		{"wrong shapes", map[string]any{"rc": "2", "stdout": 3, "failed": "yes"}, -1, runner.TaskResult{}, false},
		{"not a map", "text", -1, runner.TaskResult{}, false},
		{"nothing", nil, -1, runner.TaskResult{}, false},
	}
	for _, tc := range cases {
		got := runner.ResultOf(tc.in)
		if (got.RC == nil) != (tc.rc < 0) || (got.RC != nil && *got.RC != tc.rc) {
			t.Errorf("%s: rc %v, want %d", tc.name, got.RC, tc.rc)
		}
		if got.NonZero() != tc.nonZero {
			t.Errorf("%s: NonZero() = %v", tc.name, got.NonZero())
		}
		got.RC = nil
		if got != tc.out {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.out)
		}
	}
}
