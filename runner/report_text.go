package runner

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kupgrade/kupgrade/internal/termsafe"
)

type textReporter struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	now     func() time.Time
	total   int // host-tasks expected in the current play, an estimate for the bar
	done    int
	task    string
	started time.Time     // when the running task started (on its first host)
	timeout time.Duration // the running task's timeout, 0 when it has none
	bar     bool          // a progress line is on screen and must be cleared before the next line
	ticking bool          // a timer redraws the progress line every second
	color   bool          // results in colour (TextOptions)
	width   func() int    // the terminal's columns (TextOptions)
	host    string        // the host of the running task's latest event or line
	line    string        // the running task's latest output line (Line)
	running int           // host-tasks started and not yet ended
	state   string        // the upgrade's latest state (EventStateChanged), for the still-running line
	step    string        // the running step of upgrade run ("step 5/9 second-master controller-1")
	still   *time.Timer   // prints the still-running line when not on a terminal (report_still.go)
}

// NewTextReporter writes what a person reads: a line per task result, an Ansible-like recap and,
// when tty is true, a progress line rewritten in place, which shows the running task with its
// elapsed time (against its timeout: kubeadm may run 15 minutes) and is redrawn every second.
func NewTextReporter(w io.Writer, tty bool) Reporter {
	return newTextReporter(w, tty, time.Now)
}

func newTextReporter(w io.Writer, tty bool, now func() time.Time) *textReporter {
	return &textReporter{w: w, tty: tty, now: now}
}

// TextOptions are the text reporter's on a terminal: TTY draws the live line; Color paints the
// results (failures red); Width is the terminal's columns, which the live line never exceeds.
type TextOptions struct {
	TTY   bool
	Color bool
	Width func() int
}

// NewLiveReporter is NewTextReporter with options; it is also a LineReporter: on a terminal
// its live line shows the running task's host and the latest line its command printed.
func NewLiveReporter(w io.Writer, o TextOptions) Reporter {
	r := newTextReporter(w, o.TTY, time.Now)
	r.color, r.width = o.Color, o.Width
	return r
}

// Report prints e: its lines, the diff above a result, the progress bar redrawn below.
func (r *textReporter) Report(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	if ended(e.Event) {
		r.running = max(r.running-1, 0)
	}
	r.format(&b, e)
	if r.total > 0 {
		r.total = max(r.total, r.done) // handlers and rescues run beyond the estimate
	}
	r.clearBar()
	if e.Event == EventTaskOK || e.Event == EventTaskChanged {
		io.WriteString(r.w, termsafe.Text(e.DiffText)) // above the result's line, as Ansible prints it
	}
	io.WriteString(r.w, r.paint(e, termsafe.Text(b.String()))) // hosts' output and messages: no terminal escape gets through
	r.drawBar()
}

// format writes e's lines to b, as ansible-playbook's default callback words them, and keeps
// the progress bar's counts.
func (r *textReporter) format(b *strings.Builder, e Event) {
	switch e.Event {
	case EventPlayStart:
		r.total, r.done = 0, 0
		if n, ok := e.Data["host_tasks"].(int); ok {
			r.total = n
		}
		fmt.Fprintf(b, "PLAY [%s]\n", e.Msg)
		if n, ok := e.Data["hosts"].(int); ok && n == 0 {
			b.WriteString("skipping: no hosts matched\n")
		}
	case EventTaskStart:
		r.host = e.Host
		r.running++
		r.armStill()
		if e.Task != r.task || r.started.IsZero() {
			r.task, r.started, r.timeout, r.line = e.Task, e.Time, 0, ""
			if r.started.IsZero() {
				r.started = r.now()
			}
		}
		if t, ok := e.Data["timeout"].(float64); ok {
			r.timeout = max(r.timeout, time.Duration(t*float64(time.Second)))
		}
	case EventTaskOK, EventTaskChanged:
		r.done++
		word := "ok"
		if e.Event == EventTaskChanged {
			word = "changed"
		}
		fmt.Fprintf(b, "%s: [%s] %s%s\n", word, e.Host, e.Task, seconds(e.Duration))
		if e.Msg != "" && e.Msg != loopDone && e.Msg != loopSkipped { // debug's msg, and what a module says it did
			fmt.Fprintf(b, "  msg: %s\n", strings.ReplaceAll(e.Msg, "\n", "\n  "))
		}
	case EventTaskSkipped:
		r.done++
		fmt.Fprintf(b, "skipping: [%s] %s\n", e.Host, e.Task)
	case EventTaskFailed:
		r.done++
		fmt.Fprintf(b, "failed: [%s] %s: %s%s\n", e.Host, e.Task, e.Msg, seconds(e.Duration))
		if e.RC != nil {
			fmt.Fprintf(b, "  rc: %d\n", *e.RC)
		}
		if e.Stderr != "" {
			for l := range strings.SplitSeq(tail(e.Stderr, 5), "\n") {
				fmt.Fprintf(b, "  | %s\n", l)
			}
		}
		if e.Ignored {
			b.WriteString("  ...ignoring\n")
		}
	case EventHostUnreachable:
		r.done++
		fmt.Fprintf(b, "unreachable: [%s] %s: %s\n", e.Host, e.Task, e.Msg)
	case EventStateChanged:
		r.state = e.ToState
		if e.Host != "" {
			fmt.Fprintf(b, "state: [%s] %s -> %s", e.Host, e.FromState, e.ToState)
		} else {
			fmt.Fprintf(b, "state: %s -> %s", e.FromState, e.ToState)
		}
		if e.Msg != "" {
			fmt.Fprintf(b, " (%s)", e.Msg)
		}
		b.WriteByte('\n')
	case EventAudit:
		fmt.Fprintf(b, "audit: %s\n", e.Msg)
	case EventStepStart:
		r.step = e.Msg
		fmt.Fprintf(b, "%s\n", strings.ToUpper(e.Msg[:1])+e.Msg[1:])
	case EventPlayRecap:
		writeRecap(b, e.Recap)
		r.total, r.done, r.task, r.started, r.host, r.line, r.running = 0, 0, "", time.Time{}, "", "", 0
		r.stopStill()
	default:
		if e.Msg != "" {
			fmt.Fprintf(b, "%s: [%s] %s\n", e.Event, e.Host, e.Msg)
		}
	}
}

func (r *textReporter) clearBar() {
	if r.tty && r.bar {
		io.WriteString(r.w, "\r\x1b[K")
		r.bar = false
	}
}

// drawBar draws the progress line while a play runs, and keeps a timer redrawing it every
// second, so that a long task shows its time passing between events.
func (r *textReporter) drawBar() {
	if !r.tty || r.total == 0 {
		return
	}
	line := progress(r.done, r.total, termsafe.Text(r.task))
	if r.step != "" { // upgrade run: the step of the upgrade, not the play's task count
		line = termsafe.Text(r.step)
	}
	if !r.started.IsZero() && r.task != "" {
		line += "  " + elapsed(r.now().Sub(r.started), r.timeout)
	}
	io.WriteString(r.w, r.live(line))
	r.bar = true
	if !r.ticking {
		r.ticking = true
		time.AfterFunc(time.Second, r.tick)
	}
}

func (r *textReporter) tick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ticking = false
	if r.bar {
		r.clearBar()
		r.drawBar()
	}
}

// elapsed is `1m30s` or `1m30s/15m0s` against the task's timeout.
func elapsed(d, timeout time.Duration) string {
	s := max(d, 0).Truncate(time.Second).String()
	if timeout > 0 {
		s += "/" + timeout.String()
	}
	return s
}

func seconds(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%.1fs)", d.Seconds())
}

// progress draws `[=====>    ]  12/40  Task name` without a newline.
func progress(done, total int, task string) string {
	const width = 30
	done = min(done, total)
	fill := done * width / total
	bar := strings.Repeat("=", fill)
	if fill < width {
		bar += ">" + strings.Repeat(" ", width-fill-1)
	}
	if len(task) > 40 {
		task = task[:39] + "…"
	}
	return fmt.Sprintf("[%s] %d/%d  %s", bar, done, total, task)
}

func writeRecap(b *strings.Builder, rc map[string]*HostRecap) {
	b.WriteString("\nPLAY RECAP\n")
	names := make([]string, 0, len(rc))
	width := 0
	for n := range rc {
		names = append(names, n)
		width = max(width, len(n))
	}
	slices.Sort(names)
	for _, n := range names {
		h := rc[n]
		fmt.Fprintf(b, "%-*s : ok=%-4d changed=%-4d unreachable=%-4d failed=%-4d skipped=%-4d rescued=%-4d ignored=%d\n",
			width, n, h.OK, h.Changed, h.Unreachable, h.Failed, h.Skipped, h.Rescued, h.Ignored)
	}
}

// ended says whether an event of kind k ends a host's task.
func ended(k EventKind) bool {
	return k == EventTaskOK || k == EventTaskChanged || k == EventTaskSkipped || k == EventTaskFailed || k == EventHostUnreachable
}
