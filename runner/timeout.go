package runner

import (
	"strings"
	"time"
)

// timedOutRC is the exit status a timed-out command registers, as timeout(1) exits.
const timedOutRC = 124

// timedOut is the result of a task its timeout stopped. It has every key a command's result has
// (rc, stdout, stderr and their lines), so that an until or failed_when that reads them judges a
// timeout as a failure instead of failing on a missing key; msg says how long it was given.
func timedOut(after time.Duration) map[string]any {
	return map[string]any{"failed": true, "changed": false, "timedout": true, "rc": timedOutRC,
		"msg": "timed out after " + shortDuration(after), "stdout": "", "stderr": "",
		"stdout_lines": []any{}, "stderr_lines": []any{}}
}

// shortDuration prints d without its zero minutes and seconds: 15m, 1h, 1h30m, 90s is 1m30s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
