package upgrade_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// events records what a workflow reports.
type events struct {
	mu  sync.Mutex
	all []runner.Event
}

func (e *events) Report(ev runner.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

// The questions kupgrade asks the hosts between playbooks are tasks of the run: complete's
// question to the API server is reported on its host, started then ended with how long it took,
// so that the live view, -o json and the run log show where the run's time goes.
func TestQuestionsBetweenPlaybooksAreReportedAsTasks(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradingKubelets)
	rec := &events{}
	f.w.Reporter = rec
	if err := f.w.Run(t.Context(), upgrade.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	f.wantState(t, state.UpgradeComplete)
	started, ended := false, false
	for _, ev := range rec.all {
		if ev.Host != "controller-0" || !strings.HasPrefix(ev.Task, "Ask the API server whether every node") {
			continue
		}
		switch ev.Event {
		case runner.EventTaskStart:
			started = true
		case runner.EventTaskOK:
			ended = started && ev.Duration > 0
		}
	}
	if !started || !ended {
		t.Errorf("complete's question to the API server was not reported as a task started and ended with its duration on controller-0: %+v", rec.all)
	}
}
