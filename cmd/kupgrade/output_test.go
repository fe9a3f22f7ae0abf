package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// With -o json the final error is one JSON line on stdout, the last of the events' stream, with
// the exit status; without it, a sentence on stderr.
func TestFinalErrorAsJSON(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("KUPGRADE_DB", "sqlite:kupgrade.db")
	code, errOut, _ := run(t, "watch", "--interval", "0s", "-o", "json")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	var ev struct {
		Time       time.Time `json:"time"`
		Event      string    `json:"event"`
		Message    string    `json:"message"`
		ExitStatus int       `json:"exit_status"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &ev); err != nil {
		t.Fatalf("the last line of stdout is not JSON (%v):\n%s", err, errOut)
	}
	if code != exitBadInput || ev.Event != "error" || ev.ExitStatus != exitBadInput || ev.Time.IsZero() ||
		!strings.Contains(ev.Message, "--interval and --stale-after must be positive") {
		t.Errorf("exit %d, error event %+v", code, ev)
	}
	if _, _, errOut := run(t, "watch", "--interval", "0s"); !strings.HasPrefix(errOut, "kupgrade: --interval") {
		t.Errorf("without -o json: %q", errOut)
	}
}

// A JSON log writes durations as Go duration strings, not nanoseconds.
func TestJSONLogDurations(t *testing.T) {
	var errb bytes.Buffer
	a := newApp(&Globals{LogLevel: "info", LogFormat: "json"}, nil, &bytes.Buffer{}, &errb)
	a.log.Info("waiting", "retry_every", 90*time.Second)
	if !strings.Contains(errb.String(), `"retry_every":"1m30s"`) {
		t.Errorf("log line: %s", errb.String())
	}
}
