package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// livePlay waits in a task that prints kubeadm's line, then fails a task: what an operator
// follows on the screen during a long step.
const livePlay = `- hosts: all
  gather_facts: false
  tasks:
    - name: upgrade control plane
      shell: echo "[upgrade/staticpods] Waiting for the kubelet to restart the component"; sleep 2.5
    - name: check
      shell: echo broken >&2; exit 3
`

func writeLivePlay(t *testing.T) (inv, play string) {
	t.Helper()
	dir := t.TempDir()
	inv, play = filepath.Join(dir, "hosts.ini"), filepath.Join(dir, "play.yml")
	if err := os.WriteFile(inv, []byte("node-1 ansible_connection=local\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(play, []byte(livePlay), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUPGRADE_LOG_DIR", filepath.Join(dir, "runs"))
	return inv, play
}

// onTTY runs kupgrade with stdout and stderr on a pseudo-terminal and returns what the
// terminal received.
func onTTY(t *testing.T, args ...string) string {
	t.Helper()
	return onTTYCols(t, liveCols, args...)
}

func onTTYCols(t *testing.T, cols uint16, args ...string) string {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&screen, ptmx); close(done) }()
	Main(args, strings.NewReader(""), tty, tty)
	tty.Close()
	<-done
	return screen.String()
}

// On a terminal the live line shows the running task, its host and the latest line its command
// printed, while it runs; the failure is red; diagnostics go to the run log, not the screen.
func TestLiveViewOnATerminal(t *testing.T) {
	inv, play := writeLivePlay(t)
	t.Setenv("NO_COLOR", "")
	screen := onTTY(t, "-i", inv, "play", play)
	if !strings.Contains(screen, "upgrade control plane") || !strings.Contains(screen, "[node-1] [upgrade/staticpods] Waiting for the kubelet to restart the component") {
		t.Errorf("the live line did not show the host and kubeadm's latest line:\n%q", screen)
	}
	if !strings.Contains(screen, "\x1b[31mfailed: [node-1] check") {
		t.Errorf("the failure is not red:\n%q", screen)
	}
	if strings.Contains(screen, "level=INFO") {
		t.Errorf("diagnostics on the screen:\n%q", screen)
	}
	for _, l := range liveLines(screen) {
		if len([]rune(l)) >= liveCols {
			t.Errorf("a live line is as wide as the terminal (it would wrap and stay on screen): %q", l)
		}
	}
}

const liveCols = 160

// liveLines are the progress lines drawn in place: each ends where the next clears it.
func liveLines(screen string) []string {
	var out []string
	for _, seg := range strings.Split(screen, "\r\x1b[K") {
		l, _, _ := strings.Cut(seg, "\r")
		if strings.HasPrefix(l, "[") && !strings.Contains(l, "\n") {
			out = append(out, l)
		}
	}
	return out
}

// A narrow terminal cuts the live line (with an ellipsis) rather than let it wrap.
func TestLiveLineFitsANarrowTerminal(t *testing.T) {
	inv, play := writeLivePlay(t)
	t.Setenv("COLUMNS", "")
	screen := onTTYCols(t, 60, "-i", inv, "play", play)
	lines := liveLines(screen)
	if len(lines) == 0 {
		t.Fatalf("no live line:\n%q", screen)
	}
	for _, l := range lines {
		if len([]rune(l)) >= 60 {
			t.Errorf("live line wider than 59 columns: %q", l)
		}
	}
}

// NO_COLOR turns the colours off on a terminal; the live line stays.
func TestLiveViewNoColor(t *testing.T) {
	inv, play := writeLivePlay(t)
	t.Setenv("NO_COLOR", "1")
	screen := onTTY(t, "-i", inv, "play", play)
	if strings.Contains(screen, "\x1b[31m") || strings.Contains(screen, "\x1b[32m") {
		t.Errorf("colours under NO_COLOR:\n%q", screen)
	}
	if !strings.Contains(screen, "failed: [node-1] check") || !strings.Contains(screen, "Waiting for the kubelet") {
		t.Errorf("no failure line or live line:\n%q", screen)
	}
}

// Not on a terminal (a pipe, a file, CI): no live line, no colour, no escape at all; -o json's
// lines carry no output line of the live view.
func TestNoLiveViewOffATerminal(t *testing.T) {
	inv, play := writeLivePlay(t)
	t.Setenv("NO_COLOR", "")
	_, out, _ := run(t, "-i", inv, "play", play)
	if strings.Contains(out, "\x1b") || !strings.Contains(out, "failed: [node-1] check") {
		t.Errorf("text output off a terminal:\n%q", out)
	}
	_, out, _ = run(t, "-o", "json", "-i", inv, "play", play)
	if n := strings.Count(out, "Waiting for the kubelet"); n != 1 || strings.Contains(out, "\x1b") {
		t.Errorf("-o json holds kubeadm's line %d times (want once, in the task's stdout):\n%s", n, out)
	}
}

// While the live line is on a terminal, diagnostics (the log's info lines) go to the run log and
// warnings to the screen; off a terminal both stay on stderr, as before.
func TestDiagnosticsApartFromTheLiveView(t *testing.T) {
	dir := t.TempDir()
	for _, live := range []bool{true, false} {
		var stderr bytes.Buffer
		a := newApp(&Globals{LogLevel: "info"}, strings.NewReader(""), io.Discard, &stderr)
		a.live, a.errTTY = live, live
		a.runLog = &runLog{said: func(string, error) {}, open: func() (*os.File, error) {
			return os.CreateTemp(dir, "run-*.log")
		}}
		a.log.Info("next step", "step", "networking")
		a.log.Warn("lease renewal slow")
		path := a.runLog.close()
		logged, _ := os.ReadFile(path)
		onScreen := strings.Contains(stderr.String(), "next step")
		if live == onScreen || live != strings.Contains(string(logged), "next step") {
			t.Errorf("live=%v: info on stderr %v, in the run log %q", live, onScreen, logged)
		}
		if !strings.Contains(stderr.String(), "lease renewal slow") {
			t.Errorf("live=%v: the warning is not on stderr: %q", live, stderr.String())
		}
	}
}
