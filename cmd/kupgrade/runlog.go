package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kupgrade/kupgrade/runner"
)

// keepRunLogs is how many run logs the log folder keeps: starting a run deletes the oldest.
const keepRunLogs = 50

// runLogDir is the folder of the run logs: KUPGRADE_LOG_DIR, else runs/ in the state folder
// of the default database (/var/lib/kupgrade/runs as root, ~/.local/state/kupgrade/runs).
func runLogDir() string {
	if d := os.Getenv("KUPGRADE_LOG_DIR"); d != "" {
		return d
	}
	return filepath.Join(filepath.Dir(defaultDB()), "runs")
}

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

// openRunLog creates a new log in dir (0600, the folder 0700) named after the time and pid,
// and deletes the oldest so that at most keep remain.
func openRunLog(dir string, now time.Time, keep int) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	rotate(dir, keep-1)
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

// rotate deletes the oldest run logs of dir until at most keep remain (their names sort by
// time).
func rotate(dir string, keep int) {
	names, _ := filepath.Glob(filepath.Join(dir, "run-*.log"))
	sort.Strings(names)
	for len(names) > max(keep, 0) {
		os.Remove(names[0])
		names = names[1:]
	}
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
