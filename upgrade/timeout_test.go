package upgrade_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state"
)

// slowKubeadm is the control-plane playbook's kubeadm task with a 1 s timeout on a command that
// takes a minute.
const slowKubeadm = `- hosts: all
  gather_facts: false
  tasks:
    - name: kubeadm upgrade
      command: sleep 60
      timeout: 1
      register: kubeadm
      until: kubeadm.rc == 0 or ('[ERROR CreateJob]' not in kubeadm.stderr and '[ERROR ControlPlaneNodesReady]' not in kubeadm.stderr)
      retries: 3
      delay: 20
`

// A kubeadm its timeout stopped is recorded as timed out, with the timeout, not as the template
// error of an until that read a result with no rc.
func TestTimedOutKubeadmRecordsTheTimeout(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	file := filepath.Join(t.TempDir(), "slow.yml")
	if err := os.WriteFile(file, []byte(slowKubeadm), 0o644); err != nil {
		t.Fatal(err)
	}
	pb, err := playbooks.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		if name != "control-plane" {
			return nil, nil, false
		}
		r := runner.New(&runnertest.LocalDialer{}, runner.Options{})
		defer r.Close()
		recap, err := r.Play(ctx, pb, f.inv, runner.PlayOptions{Hosts: []string{limit}})
		return recap, err, true
	}
	if err := f.w.Do(t.Context(), controlPlane("controller-1")); err == nil {
		t.Fatal("a timed-out kubeadm must fail the step")
	}
	f.wantState(t, state.UpgradingSecondMasterFailed)
	evs, err := f.st.Events(t.Context(), "default", 2)
	if err != nil || len(evs) != 2 {
		t.Fatalf("events %v, %v", evs, err)
	}
	if want := `task "kubeadm upgrade": timed out after 1s`; evs[1].Reason != want {
		t.Errorf("recorded reason %q, want %q", evs[1].Reason, want)
	}
}
