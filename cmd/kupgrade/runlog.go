package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kupgrade/kupgrade/runner"
)

// runLog is the log of one run: every event with its time, each task's whole output included
// (kubeadm's too), as Ansible's log_path and k0sctl's per-run log keep it. Its file is made at
// the first event, so that a command that runs no task leaves none.
type runLog struct {
	mu   sync.Mutex
	f    *os.File
	err  error
	open func() (*os.File, error)
	said func(path string, err error) // told once the file is made, or could not be
}

// openRunLog creates a new log in dir (0600, the folders 0700) named after the time and pid;
// byAge: the logs of dir older than runLogAge are deleted first (see runLogFolder).
func openRunLog(dir string, now time.Time, byAge bool) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if byAge {
		pruneByAge(dir, now, runLogAge)
	}
	name := fmt.Sprintf("run-%s-%d.log", now.UTC().Format("20060102T150405.000Z"), os.Getpid())
	return os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
}

// close closes the file and returns its path ("" when none was made).
func (l *runLog) close() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return ""
	}
	l.f.Close()
	return l.f.Name()
}

// Report writes e (report: of cluster, "" when the run has one): a line with its time, kind, host and task, then its output, each line
// indented ("| " stdout, "! " stderr).
func (l *runLog) Report(e runner.Event) { l.report(e, "") }

// clusterLog is the run log of one cluster of a fleet run: its lines name the cluster.
type clusterLog struct {
	l       *runLog
	cluster string
}

func (c clusterLog) Report(e runner.Event) { c.l.report(e, c.cluster) }

func (l *runLog) report(e runner.Event, cluster string) {
	var b strings.Builder
	t := e.Time
	if t.IsZero() {
		t = time.Now()
	}
	fmt.Fprintf(&b, "%s %s", t.UTC().Format(time.RFC3339Nano), e.Event)
	for _, s := range []string{cluster, e.Host, e.Task, e.Msg} {
		if s != "" {
			fmt.Fprintf(&b, " [%s]", s)
		}
	}
	if e.FromState != "" || e.ToState != "" {
		fmt.Fprintf(&b, " %s -> %s", e.FromState, e.ToState)
	}
	if e.RC != nil {
		fmt.Fprintf(&b, " rc=%d", *e.RC)
	}
	if e.Duration > 0 {
		fmt.Fprintf(&b, " took %s", e.Duration.Round(time.Millisecond))
	}
	b.WriteString("\n")
	indent(&b, "  | ", e.Stdout)
	indent(&b, "  ! ", e.Stderr)
	l.write(b.String())
}

func (l *runLog) write(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.err == nil {
		l.f, l.err = l.open()
		if l.err == nil {
			l.said(l.f.Name(), nil)
		} else {
			l.said("", l.err)
		}
	}
	if l.f != nil {
		l.f.WriteString(s)
	}
}

func indent(b *strings.Builder, prefix, text string) {
	if text == "" {
		return
	}
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(prefix + line + "\n")
	}
}

// tee sends every event to both reporters.
type tee struct{ a, b runner.Reporter }

func (t tee) Report(e runner.Event) { t.a.Report(e); t.b.Report(e) }

// footer writes s at the end of the log, when a log was made.
func (l *runLog) footer(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.WriteString(s)
	}
}
