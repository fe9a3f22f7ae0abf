package runner_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner"
)

func TestJSONReporter(t *testing.T) {
	var b bytes.Buffer
	r := runner.NewJSONReporter(&b)
	rc := 2
	loc := time.FixedZone("CET", 3600)
	r.Report(runner.Event{Time: time.Date(2024, 5, 1, 12, 0, 0, 0, loc), Event: runner.EventTaskFailed, Host: "h1",
		Task: "kubeadm", RC: &rc, Msg: "non-zero return code", Stderr: "boom", Duration: 1500 * time.Millisecond})
	r.Report(runner.Event{Event: runner.EventStateChanged, Host: "h1", FromState: "a", ToState: "b"})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one line per event:\n%s", b.String())
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"time": "2024-05-01T11:00:00Z", "event": "task_failed", "host": "h1", "task": "kubeadm",
		"rc": 2.0, "msg": "non-zero return code", "stderr": "boom", "duration": 1.5}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if _, ok := m["changed"]; ok {
		t.Error("unset optional keys must be left out")
	}
	var s map[string]any
	json.Unmarshal([]byte(lines[1]), &s)
	if s["task"] != "" || s["from_state"] != "a" || s["to_state"] != "b" {
		t.Errorf("state event = %v: time, event, host and task are always present", s)
	}
}

func TestTextReporter(t *testing.T) {
	rc := 1
	events := []runner.Event{
		{Event: runner.EventPlayStart, Msg: "Upgrade", Data: map[string]any{"host_tasks": 4}},
		{Event: runner.EventTaskStart, Host: "controller-0", Task: "Pull images"},
		{Event: runner.EventTaskOK, Host: "controller-0", Task: "Pull images", Duration: 400 * time.Millisecond},
		{Event: runner.EventTaskChanged, Host: "controller-1", Task: "Pull images", Changed: true, Duration: time.Second},
		{Event: runner.EventTaskFailed, Host: "controller-1", Task: "kubeadm", Msg: "non-zero return code", RC: &rc,
			Stderr: "line1\nline2\n[ERROR] addon phase failed"},
		{Event: runner.EventPlayRecap, Recap: map[string]*runner.HostRecap{"controller-0": {OK: 1}, "controller-1": {OK: 1, Changed: 1, Failed: 1}}},
	}
	for _, tty := range []bool{false, true} {
		var b bytes.Buffer
		r := runner.NewTextReporter(&b, tty)
		for _, e := range events {
			r.Report(e)
		}
		out := b.String()
		for _, want := range []string{
			"ok: [controller-0] Pull images (0.4s)\n",
			"changed: [controller-1] Pull images (1.0s)\n",
			"failed: [controller-1] kubeadm: non-zero return code\n  rc: 1\n",
			"  | [ERROR] addon phase failed\n",
			"controller-1 : ok=1    changed=1    unreachable=0    failed=1",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("tty=%v: output lacks %q:\n%s", tty, want, out)
			}
		}
		if bar := strings.Contains(out, "\r\x1b[K") || strings.Contains(out, "3/4"); bar != tty {
			t.Errorf("tty=%v: progress bar shown = %v:\n%q", tty, bar, out)
		}
	}
}

// On a terminal the progress line shows the running task's elapsed time against its timeout,
// and its count never runs past its total (handlers and facts beyond the estimate).
func TestTextReporterProgress(t *testing.T) {
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	now := start.Add(90 * time.Second)
	var b bytes.Buffer
	r := runner.NewTextReporterAt(&b, func() time.Time { return now })
	r.Report(runner.Event{Event: runner.EventPlayStart, Msg: "Upgrade", Data: map[string]any{"host_tasks": 1}})
	r.Report(runner.Event{Time: start, Event: runner.EventTaskStart, Host: "controller-0", Task: "kubeadm upgrade apply",
		Data: map[string]any{"timeout": 900.0}})
	if out := b.String(); !strings.HasSuffix(out, "0/1  kubeadm upgrade apply  1m30s/15m0s  [controller-0]") {
		t.Errorf("progress line: %q", out)
	}
	lr := r.(runner.LineReporter)
	lr.Line("controller-0", "kubeadm upgrade apply", "[upgrade/staticpods] Waiting for the kubelet to restart the component\x1b]0;x\a")
	lr.Line("controller-1", "another task", "not this one")
	if out := b.String(); !strings.HasSuffix(out, "1m30s/15m0s  [controller-0] [upgrade/staticpods] Waiting for the kubelet to restart the component\\u001b]0;x\\u0007") {
		t.Errorf("progress line with the command's latest line (escapes shown, not sent): %q", out)
	}
	r.Report(runner.Event{Event: runner.EventTaskOK, Host: "controller-0", Task: "kubeadm upgrade apply"})
	r.Report(runner.Event{Time: now, Event: runner.EventTaskStart, Host: "controller-0", Task: "restart kubelet"})
	r.Report(runner.Event{Event: runner.EventTaskChanged, Host: "controller-0", Task: "restart kubelet"})
	if out := b.String(); !strings.HasSuffix(out, "2/2  restart kubelet  0s  [controller-0]") || strings.Contains(out, "2/1") {
		t.Errorf("progress after a handler beyond the estimate: %q", out)
	}
	r.Report(runner.Event{Event: runner.EventPlayRecap}) // stops the redraws before b is released
}

// A host's stderr, message and task name cannot drive the operator's terminal through the text
// output: a window-title sequence (and the colours and carriage return beside it) is printed as
// visible escapes, as the JSON output prints it.
func TestTextReporterEscapesTerminalSequences(t *testing.T) {
	rc := 1
	title := "\x1b]0;you are on prod\x07"
	for _, tty := range []bool{false, true} {
		var b bytes.Buffer
		r := runner.NewTextReporter(&b, tty)
		r.Report(runner.Event{Event: runner.EventPlayStart, Msg: "Upgrade", Data: map[string]any{"host_tasks": 1}})
		r.Report(runner.Event{Event: runner.EventTaskStart, Host: "h1", Task: "kubeadm " + title})
		r.Report(runner.Event{Event: runner.EventTaskFailed, Host: "h1", Task: "kubeadm " + title, RC: &rc,
			Msg: "\x1b[32mall good\x1b[0m", Stderr: title + "preflight\rerror"})
		out := b.String()
		if tty { // the progress line's own clearing is the only escape the reporter writes
			out = strings.ReplaceAll(out, "\r\x1b[K", "")
		}
		if strings.ContainsAny(out, "\x1b\x07\r") {
			t.Errorf("tty=%v: a terminal sequence got through:\n%q", tty, out)
		}
		for _, want := range []string{`\u001b]0;you are on prod\u0007preflight\u000derror`, `\u001b[32mall good`} {
			if !strings.Contains(out, want) {
				t.Errorf("tty=%v: output lacks %q:\n%q", tty, want, out)
			}
		}
	}
}
