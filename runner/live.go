package runner

import (
	"bytes"
	"io"
	"sync"
)

// LineReporter is a Reporter that also takes each line a task's command prints while it runs:
// the live view shows a long step's latest line (kubeadm's "Waiting for the kubelet to restart
// the component"). The runner calls Line only on a Reporter that has it, never for a no_log
// task, and it never changes the events: JSON Lines stay as they are.
type LineReporter interface {
	Line(host, task, line string)
}

// lineTap passes what a command writes on to w, and each completed line to say.
type lineTap struct {
	w    io.Writer
	mu   *sync.Mutex // shared by a command's stdout and stderr taps
	part []byte
	say  func(string)
}

const maxTapLine = 4096 // a longer line is said cut at that length

func (t *lineTap) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	rest := p[:n]
	for {
		i := bytes.IndexAny(rest, "\r\n")
		if i < 0 {
			break
		}
		t.said(append(t.part, rest[:i]...))
		t.part, rest = t.part[:0], rest[i+1:]
	}
	if len(t.part)+len(rest) <= maxTapLine {
		t.part = append(t.part, rest...)
	}
	return n, err
}

func (t *lineTap) said(line []byte) {
	if len(bytes.TrimSpace(line)) > 0 {
		t.say(string(line))
	}
}

// tapped is stdout and stderr with each line said (the writers as they are when say is nil).
func tapped(stdout, stderr io.Writer, say func(string)) (io.Writer, io.Writer) {
	if say == nil {
		return stdout, stderr
	}
	mu := &sync.Mutex{}
	return &lineTap{w: orDiscard(stdout), mu: mu, say: say}, &lineTap{w: orDiscard(stderr), mu: mu, say: say}
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// tapLines makes h's connection say each line of the task's commands to the Reporter, when it
// is a LineReporter and the task is not no_log; the returned function stops it.
func (e *playExec) tapLines(h *hostState, t *ctask) func() {
	lr, ok := e.r.rep.(LineReporter)
	if !ok || t.noLog || h.conn == nil {
		return func() {}
	}
	c, host, task := h.conn, h.name, t.name
	c.say = func(line string) {
		e.r.repMu.Lock()
		defer e.r.repMu.Unlock()
		lr.Line(host, task, line)
	}
	return func() { c.say = nil }
}
