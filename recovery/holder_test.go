package recovery_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/recovery/recoverytest"
	"github.com/kupgrade/kupgrade/state"
)

// A live lease whose holder is a process of this machine that is gone (killed): recover says so
// and how to go on now, instead of "slow, not stuck"; nothing is written without --force.
func TestRecoverNoticesAGoneHolder(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skipf("no true(1) to start: %v", err)
	}
	host, _ := os.Hostname()
	f := recoverytest.New(t)
	f.Start(t, "default")
	f.Move(t, "default", state.UpgradingSecondMaster, "controller-2", state.UpgradingControlPlane, fmt.Sprintf("%s:%d:abcd", host, dead.Process.Pid), time.Hour)
	_, err := recovery.Recover(t.Context(), f.St, recovery.RecoverOptions{Cluster: "default"})
	if !isConflict(err) || !strings.Contains(err.Error(), fmt.Sprintf("process %d of this machine, is gone", dead.Process.Pid)) ||
		strings.Contains(err.Error(), "slow, not stuck") {
		t.Fatalf("recover with a killed holder: %v", err)
	}
	if u := f.Upgrade(t, "default"); u.State != state.UpgradingSecondMaster {
		t.Errorf("state %s: want nothing written", u.State)
	}
	f.Move(t, "default", state.UpgradingSecondMaster, "controller-2", state.UpgradingControlPlane, fmt.Sprintf("%s:%d:abcd", host, os.Getpid()), time.Hour)
	if _, err := recovery.Recover(t.Context(), f.St, recovery.RecoverOptions{Cluster: "default"}); err == nil || !strings.Contains(err.Error(), "slow, not stuck") {
		t.Errorf("recover with a live holder on this machine: %v, want slow, not stuck", err)
	}
}

// The one "what now" (upgrade show, plan, the page) agrees with recover: a live lease whose
// holder is a gone process of this machine is recovered now with --force, not waited for;
// a holder still running is waited for, and so is one on another machine (nobody here can tell).
func TestNextForAGoneHolder(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skipf("no true(1) to start: %v", err)
	}
	host, _ := os.Hostname()
	now := time.Now()
	lease := func(owner string) *state.Lease {
		return &state.Lease{Owner: owner, Operation: "second-master@controller-1", HeartbeatAt: now, ExpiresAt: now.Add(time.Minute)}
	}
	for _, tc := range []struct {
		owner     string
		cmd, wait string
	}{
		{fmt.Sprintf("%s:%d:abcd", host, dead.Process.Pid), recovery.RecoverForceCommand, ""},
		{fmt.Sprintf("%s:%d:abcd", host, os.Getpid()), "", "wait for it"},
		{fmt.Sprintf("%s-elsewhere:%d:abcd", host, dead.Process.Pid), "", "wait for it"},
	} {
		cmd, wait := recovery.Next(recovery.NextIn{State: state.UpgradingSecondMaster, Lease: lease(tc.owner), Now: now})
		if cmd != tc.cmd || !strings.Contains(wait, tc.wait) || (tc.wait == "") != (wait == "") {
			t.Errorf("holder %s: next = %q, wait %q; want %q, %q", tc.owner, cmd, wait, tc.cmd, tc.wait)
		}
	}
}
