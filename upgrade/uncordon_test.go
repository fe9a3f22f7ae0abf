package upgrade_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

const oneController = `all:
  children:
    controllers:
      hosts:
        controller-0:
    workers:
      hosts:
        worker-0:
        worker-1:
`

// A one-controller system's controller, cordoned before its control plane, is uncordoned
// before complete even when `upgrade run` resumes after more than 1,000 events: whether it was
// cordoned is read from the state's history, not from the newest events.
func TestResumedRunUncordonsAfterManyEvents(t *testing.T) {
	f := newFixtureWith(t, oneController)
	f.c.snaps["worker-1"] = f.c.snaps["worker-0"]
	f.c.kubelet["worker-1"] = f.c.kubelet["worker-0"]
	if _, err := f.w.Start(t.Context(), "v1.30.1", "", false); err != nil {
		t.Fatal(err)
	}
	if err := f.w.Run(t.Context(), upgrade.RunOptions{Until: state.UpgradedNetworking}); err != nil {
		t.Fatal(err)
	}
	if err := f.w.Do(t.Context(), upgrade.Action{Step: state.StepCordon, Hosts: []string{"controller-0"}}); err != nil {
		t.Fatal(err)
	}
	if err := f.w.Run(t.Context(), upgrade.RunOptions{Until: state.UpgradingKubelets}); err != nil {
		t.Fatal(err)
	}
	for range 1001 { // a long kubelet phase: many workers' events
		if err := f.st.AddEvent(t.Context(), state.Event{Cluster: "default", Actor: state.ActorRunner, Reason: "worker event"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.w.Run(t.Context(), upgrade.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	f.wantState(t, state.UpgradeComplete)
	if !slices.ContainsFunc(f.c.played(), func(p string) bool { return strings.HasPrefix(p, "uncordon@") }) {
		t.Errorf("complete with the controller still cordoned: plays %v", f.c.played())
	}
}
