package runner

import (
	"strings"
	"unicode/utf8"

	"github.com/kupgrade/kupgrade/internal/termsafe"
)

// ANSI colours of the text reporter (TextOptions.Color).
const (
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	reset  = "\x1b[0m"
)

// Line keeps the running task's latest output line for the live line (and the still-running
// line off a terminal), and redraws it; kupgrade's own protocol lines are never shown.
func (r *textReporter) Line(host, task, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if task != r.task || protocolLine.MatchString(line) || strings.TrimSpace(line) == "" {
		return
	}
	r.host, r.line = host, strings.TrimSpace(termsafe.Text(line))
	if r.bar {
		r.clearBar()
		r.drawBar()
	}
}

// live is the progress line with the running task's host and latest output line, cut to the
// terminal's width: a longer line would wrap, and clearing it would leave its first row.
func (r *textReporter) live(line string) string {
	if r.host != "" && r.step == "" { // a step names its hosts
		line += "  [" + termsafe.Text(r.host) + "]"
	}
	if r.line != "" {
		line += " " + r.line
	}
	if r.width == nil {
		return line
	}
	width := r.width()
	if width <= 0 {
		width = 80
	}
	return cut(line, width-1)
}

// cut keeps the first n characters of s, the last one an ellipsis when s was longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	return string(rs[:max(n-1, 0)]) + "…"
}

// paint colours the first line of a result as Ansible does (failed and unreachable red, changed
// yellow, ok green), and a state change into a failed state red; the output lines under it
// stay plain. Without colour the text is unchanged.
func (r *textReporter) paint(e Event, s string) string {
	if !r.color || s == "" {
		return s
	}
	c := ""
	switch e.Event {
	case EventTaskFailed, EventHostUnreachable:
		c = red
		if e.Ignored {
			c = yellow
		}
	case EventTaskChanged:
		c = yellow
	case EventTaskOK:
		c = green
	case EventStateChanged:
		if strings.Contains(e.ToState, "fail") {
			c = red
		}
	case EventPlayRecap:
		return paintRecap(e, s)
	}
	if c == "" {
		return s
	}
	first, rest, _ := strings.Cut(s, "\n")
	return c + first + reset + "\n" + rest
}

// paintRecap colours each host's recap line: red when it failed or was unreachable, yellow when
// it changed something, green otherwise.
func paintRecap(e Event, s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		name, _, ok := strings.Cut(l, " :")
		h := e.Recap[strings.TrimSpace(name)]
		if !ok || h == nil {
			continue
		}
		c := green
		if h.Failed > 0 || h.Unreachable > 0 {
			c = red
		} else if h.Changed > 0 {
			c = yellow
		}
		lines[i] = c + l + reset
	}
	return strings.Join(lines, "\n")
}

// Aside runs f, which writes a line of its own to the terminal, with the live line cleared
// first and drawn again after it.
func (r *textReporter) Aside(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	drawn := r.bar
	r.clearBar()
	f()
	if drawn {
		r.drawBar()
	}
}
