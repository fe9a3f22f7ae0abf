package main

import (
	"bytes"
	"encoding/json"
	"os"
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

// With -o json every line a tool reads is JSON, on stdout and stderr: the events, the run log's
// path, the playbook's warnings and the final error. --log-format text still gives text.
func TestPlayOutputAllJSON(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("KUPGRADE_DB", "sqlite:kupgrade.db")
	t.Setenv("XDG_STATE_HOME", dir)
	writeFile(t, "inv.yml", "all:\n  hosts:\n    here: {ansible_connection: local}\n")
	writeFile(t, "t.yml", "- debug: {msg: included}\n")
	writeFile(t, "site.yml", "- hosts: all\n  gather_facts: false\n  tasks:\n    - include: t.yml\n    - fail: {msg: stop}\n")
	code, out, errOut := run(t, "play", "site.yml", "-i", "inv.yml", "-o", "json")
	if code == exitOK {
		t.Fatalf("the failing play exited 0")
	}
	var lines []string
	for _, s := range []string{out, errOut} {
		lines = append(lines, strings.Split(strings.TrimSpace(s), "\n")...)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("not JSON: %q", l)
		}
	}
	if !strings.Contains(errOut, `"msg":"run log"`) || !strings.Contains(errOut, `deprecated`) {
		t.Errorf("stderr lacks the run log's path or the warning:\n%s", errOut)
	}
	if _, _, errOut := run(t, "play", "site.yml", "-i", "inv.yml", "-o", "json", "--log-format", "text"); !strings.Contains(errOut, `level=INFO msg="run log"`) {
		t.Errorf("--log-format text: %s", errOut)
	}
}

func writeFile(t *testing.T, name, body string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A key of an inventory group that Ansible skips with a warning is skipped with the warning,
// naming its file and line; the play runs.
func TestInventoryWarningShown(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("KUPGRADE_DB", "sqlite:kupgrade.db")
	t.Setenv("XDG_STATE_HOME", dir)
	writeFile(t, "inv.yml", "all:\n  colour: blue\n  hosts:\n    here: {ansible_connection: local}\n")
	writeFile(t, "site.yml", "- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: {msg: hi}\n")
	code, _, errOut := run(t, "play", "site.yml", "-i", "inv.yml")
	if code != exitOK || !strings.Contains(errOut, `inv.yml:2:3: unknown key \"colour\" in group \"all\"`) ||
		!strings.Contains(errOut, "skipped, as Ansible skips it") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}
