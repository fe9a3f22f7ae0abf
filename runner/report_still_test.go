package runner_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kupgrade/kupgrade/runner"
)

// lockedBuffer is a buffer the reporter's timer writes to while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// Off a terminal (| tee, CI, nohup) a long task is not silent: every runner.StillEvery a line
// names the state, the host, the task, its elapsed time against its timeout and the latest line
// its command printed (never a line of kupgrade's own protocol); none once the task ended. On
// the fake clock of a synctest bubble: nothing sleeps.
func TestStillRunningLineOffATerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		r := runner.NewTextReporter(&out, false)
		lr := r.(runner.LineReporter)
		r.Report(runner.Event{Event: runner.EventStateChanged, FromState: "upgraded-first-master", ToState: "upgrading-second-master"})
		r.Report(runner.Event{Event: runner.EventPlayStart, Msg: "Upgrade", Data: map[string]any{"host_tasks": 1}})
		r.Report(runner.Event{Event: runner.EventTaskStart, Host: "controller-1", Task: "kubeadm upgrade", Data: map[string]any{"timeout": 900.0}})
		lr.Line("controller-1", "kubeadm upgrade", "[upgrade/staticpods] Waiting for the kubelet to restart the component")
		lr.Line("controller-1", "kubeadm upgrade", "dir\tbackup\t1700000000\t/etc/kubernetes/tmp/kubeadm-backup-manifests-x")
		time.Sleep(2*runner.StillEvery + time.Second)
		synctest.Wait()
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		still := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "still running: ") {
				still++
				if !strings.Contains(l, "upgrading-second-master [controller-1] kubeadm upgrade ") || !strings.Contains(l, "/15m0s: [upgrade/staticpods] Waiting for the kubelet") {
					t.Errorf("still-running line %q lacks the state, host, task, timeout or kubeadm's latest line", l)
				}
			}
		}
		if still != 2 {
			t.Errorf("%d still-running lines after two periods, want 2:\n%s", still, out.String())
		}
		r.Report(runner.Event{Event: runner.EventTaskChanged, Host: "controller-1", Task: "kubeadm upgrade"})
		before := out.String()
		time.Sleep(2 * runner.StillEvery)
		synctest.Wait()
		if after := out.String(); after != before {
			t.Errorf("a still-running line after the task ended:\n%s", strings.TrimPrefix(after, before))
		}
		r.Report(runner.Event{Event: runner.EventPlayRecap, Recap: map[string]*runner.HostRecap{"controller-1": {Changed: 1}}})
	})
}

// On a terminal the live line shows the task's latest line; no still-running line is printed.
func TestNoStillRunningLineOnATerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		r := runner.NewTextReporter(&out, true)
		r.Report(runner.Event{Event: runner.EventPlayStart, Msg: "Upgrade", Data: map[string]any{"host_tasks": 1}})
		r.Report(runner.Event{Event: runner.EventTaskStart, Host: "controller-1", Task: "kubeadm upgrade"})
		time.Sleep(runner.StillEvery + time.Second)
		synctest.Wait()
		if strings.Contains(out.String(), "still running") {
			t.Errorf("a still-running line on a terminal:\n%q", out.String())
		}
		r.Report(runner.Event{Event: runner.EventPlayRecap, Recap: map[string]*runner.HostRecap{"controller-1": {}}})
	})
}

// In upgrade run the live line names the step of the upgrade, not the play's task count, and
// gives the rest of the line to the command's latest line; a protocol line never reaches it.
func TestLiveLineNamesTheStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out lockedBuffer
		r := runner.NewLiveReporter(&out, runner.TextOptions{TTY: true, Width: func() int { return 80 }})
		lr := r.(runner.LineReporter)
		r.Report(runner.Event{Event: runner.EventStepStart, Msg: "step 5/9 second-master controller-1"})
		r.Report(runner.Event{Event: runner.EventPlayStart, Msg: "Upgrade", Data: map[string]any{"host_tasks": 7}})
		r.Report(runner.Event{Event: runner.EventTaskStart, Host: "controller-1", Task: "kubeadm upgrade"})
		lr.Line("controller-1", "kubeadm upgrade", "[upgrade/staticpods] Waiting")
		lr.Line("controller-1", "kubeadm upgrade", "fence\t0\tnone")
		s := out.String()
		last := s[strings.LastIndex(s, "\r\x1b[K")+len("\r\x1b[K"):]
		if !strings.HasPrefix(last, "step 5/9 second-master controller-1  0s [upgrade/staticpods] Waiting") || strings.Contains(last, "0/7") {
			t.Errorf("live line %q, want the step, its time and kubeadm's line, no task count", last)
		}
		if !strings.Contains(s, "Step 5/9 second-master controller-1\n") {
			t.Errorf("the step's start is not a line of its own:\n%q", s)
		}
		r.Report(runner.Event{Event: runner.EventPlayRecap, Recap: map[string]*runner.HostRecap{"controller-1": {}}})
	})
}
