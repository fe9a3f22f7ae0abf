package runner

import (
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/kupgrade/kupgrade/internal/termsafe"
)

// StillEvery is how often a text reporter that is not on a terminal (a pipe, `| tee`, CI,
// nohup) prints a still-running line while a task runs: where no live line is drawn, the
// minutes of a `kubeadm upgrade apply` would otherwise pass in silence.
const StillEvery = 30 * time.Second

// protocolLine matches a line of kupgrade's own protocol between a script and the runner (the
// probe's `dir<TAB>backup<TAB>…`, `fence<TAB>0<TAB>…`, its closing `end`): a word, then a tab.
// Such lines are for the runner, never for the live or still-running line.
var protocolLine = regexp.MustCompile("^([a-z]+\t|end$)")

// armStill starts the still-running timer when a task starts on a reporter that draws no live
// line; r.mu is held.
func (r *textReporter) armStill() {
	if r.tty || r.still != nil {
		return
	}
	r.still = time.AfterFunc(StillEvery, r.stillTick)
}

// stopStill stops the still-running timer; r.mu is held.
func (r *textReporter) stopStill() {
	if r.still != nil {
		r.still.Stop()
		r.still = nil
	}
}

// stillTick prints the still-running line while a task runs, and arms the timer again.
func (r *textReporter) stillTick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.still == nil {
		return
	}
	if r.running > 0 && r.task != "" {
		io.WriteString(r.w, r.stillLine())
	}
	r.still = time.AfterFunc(StillEvery, r.stillTick)
}

// stillLine is "still running: upgrading-second-master [controller-1] kubeadm upgrade 1m30s/15m0s:
// [upgrade/staticpods] Waiting for the kubelet to restart the component".
func (r *textReporter) stillLine() string {
	s := "still running:"
	if r.step != "" {
		s += " " + termsafe.Text(r.step) + ","
	}
	if r.state != "" {
		s += " " + termsafe.Text(r.state)
	}
	if r.host != "" {
		s += " [" + termsafe.Text(r.host) + "]"
	}
	s += fmt.Sprintf(" %s %s", termsafe.Text(r.task), elapsed(r.now().Sub(r.started), r.timeout))
	if r.line != "" {
		s += ": " + r.line
	}
	return s + "\n"
}
