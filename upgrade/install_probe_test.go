package upgrade_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// A failed package install is the step's failed twin whose finding says which versions are
// installed and held now, read from dpkg after the failure; a kubeadm failure's finding does
// not ask the package manager.
func TestFailedInstallFindingNamesPackages(t *testing.T) {
	for _, task := range []string{"Install kubeadm v1.30.1", "kubeadm upgrade"} {
		f := newFixture(t)
		f.at(t, state.UpgradedFirstMaster)
		installed := "### kupgrade-health mgr rc=0\napt\n### kupgrade-health installed rc=0\n" +
			"kubeadm 1.29.4-1.1 hold ok installed\nkubelet 1.29.4-1.1 install ok installed\nkubectl 1.29.4-1.1 hold ok installed\n"
		f.c.results = map[string]runnertest.Result{"dpkg-query": {Stdout: installed}}
		f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
			r := failed("controller-1", 100, "E: Sub-process /usr/bin/dpkg returned an error code (1)\n")
			r.Failures[0].Task = task
			return r, r.Err(), true
		}
		err := f.w.Do(t.Context(), controlPlane("controller-1"))
		var se *upgrade.StepError
		if !errors.As(err, &se) || se.Finding == nil {
			t.Fatalf("%s failed: %v, want a StepError with a finding", task, err)
		}
		f.wantState(t, state.UpgradingSecondMasterFailed)
		want := "Installed now: kubeadm 1.29.4-1.1 (held), kubelet 1.29.4-1.1 (not held), kubectl 1.29.4-1.1 (held)."
		if got := strings.Contains(se.Finding.Summary, want); got != strings.HasPrefix(task, "Install") {
			t.Errorf("%s failed: finding %q; naming the packages: %v", task, se.Finding.Summary, got)
		}
		if ev := f.lastEvent(t); strings.HasPrefix(task, "Install") && !strings.Contains(ev.Reason, want) {
			t.Errorf("the probe's event %q does not name the packages", ev.Reason)
		}
	}
}
