package upgrade_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// refuseAborted refuses the write that ends an abort, as when someone failed the operation
// meanwhile (a compare-and-set that finds another outcome).
type refuseAborted struct{ state.Store }

func (s *refuseAborted) Apply(ctx context.Context, c state.Change) (state.Upgrade, error) {
	if c.To() == state.UpgradeAborted {
		return state.Upgrade{}, fmt.Errorf("%w: state changed underneath", state.ErrConflict)
	}
	return s.Store.Apply(ctx, c)
}

// An abort whose first write (upgrade-aborting) is recorded and whose second is not left the
// state in flight: the error says the outcome is not recorded (exit 6), not a plain failure.
func TestAbortWhoseEndIsNotRecorded(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedNetworking)
	f.w.Store = &refuseAborted{Store: f.st}
	err := f.w.Abort(t.Context())
	if !errors.Is(err, upgrade.ErrNotRecorded) {
		t.Fatalf("abort: %v, want an error marked not recorded (exit 6)", err)
	}
	f.wantState(t, state.UpgradeAborting)
}

// Abort restores nothing on a controller no control-plane step of this upgrade ran on; one whose
// control plane moved anyway (kubeadm run by hand) is refused, naming it, with nothing written:
// there is no record of which backup holds what it was, and abort does not guess.
func TestAbortLeavesUntouchedControllersAlone(t *testing.T) {
	for _, tc := range []struct {
		name     string
		manifest string // controller-1's control-plane version on disk
		refused  bool
	}{
		{"untouched", "v1.29.4", false},
		{"moved by hand", "v1.30.1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.at(t, state.UpgradedNetworking)
			f.c.mu.Lock()
			f.c.snaps["controller-1"] = snapAt(tc.manifest, "sha-old", true) // a folder from an earlier upgrade
			f.c.mu.Unlock()
			err := f.w.Abort(t.Context())
			if ran := slices.ContainsFunc(f.c.played(), func(p string) bool { return strings.HasPrefix(p, "abort@") }); ran {
				t.Errorf("the abort playbook ran (plays %v): nothing of this upgrade is there to restore", f.c.played())
			}
			if !tc.refused {
				if err != nil {
					t.Fatalf("abort: %v", err)
				}
				f.wantState(t, state.UpgradeAborted)
				return
			}
			if !errors.Is(err, state.ErrRefused) || !strings.Contains(err.Error(), "controller-1") || !strings.Contains(err.Error(), "v1.30.1") {
				t.Errorf("abort: %v, want a refusal naming controller-1 at v1.30.1", err)
			}
			f.wantState(t, state.UpgradedNetworking)
		})
	}
}

// After controller-0's control-plane step, abort restores controller-0 alone, from the folders
// recorded for this upgrade, verifies the versions and writes them back into the host table.
func TestAbortRestoresOnlyWhatTheUpgradeTouched(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	if b := f.host(t, "controller-0").Backups; b.Tags["kube-apiserver"] != "v1.29.4" || len(b.Manifests) != 1 {
		t.Fatalf("controller-0's record after its step: %+v, want the v1.29.4 tags and the one folder kubeadm made", b)
	}
	if b := f.host(t, "controller-1").Backups; b.Recorded() {
		t.Fatalf("controller-1 has a record although no step ran there: %+v", b)
	}
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("abort: %v", err)
	}
	if got := f.c.played(); got[len(got)-1] != "abort@controller-0" {
		t.Errorf("plays %v, want the restore on controller-0 alone", got)
	}
	f.wantState(t, state.UpgradeAborted)
	if h := f.host(t, "controller-0"); h.ControlPlaneVersion != "v1.29.4" {
		t.Errorf("host table: controller-0's control plane at %q after the abort, want v1.29.4 as read back", h.ControlPlaneVersion)
	}
}

// An abort whose restore leaves a controller off its starting versions ends in
// upgrade-aborting-failed naming the difference, not in upgrade-aborted.
func TestAbortVerifiesTheVersions(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	f.c.onPlay = func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		return &runner.Recap{Hosts: map[string]*runner.HostRecap{}}, nil, name == "abort" // restores nothing
	}
	err := f.w.Abort(t.Context())
	if err == nil || !strings.Contains(err.Error(), "controller-0: kube-apiserver at v1.30.1, want v1.29.4") {
		t.Errorf("abort: %v, want a failure naming controller-0's kube-apiserver", err)
	}
	f.wantState(t, state.UpgradeAbortingFailed)
}

// Once a kubelet runs the target, abort refuses, naming it and saying why, and writes nothing;
// with that kubelet back at the from version (by hand), the same abort goes through.
func TestAbortRefusedOnceKubeletsMoved(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradingKubelets)
	if err := f.w.Do(t.Context(), upgrade.Action{Step: state.StepKubelets, Hosts: []string{"controller-0"}}); err != nil {
		t.Fatal(err)
	}
	before := f.wantState(t, state.UpgradingKubelets)
	err := f.w.Abort(t.Context())
	if !errors.Is(err, state.ErrRefused) || !strings.Contains(err.Error(), "controller-0 at v1.30.1") || !strings.Contains(err.Error(), "newer than their API server") {
		t.Fatalf("abort: %v, want a refusal naming controller-0's kubelet and why", err)
	}
	if u := f.wantState(t, state.UpgradingKubelets); !u.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("the refused abort wrote the upgrade row")
	}
	f.c.mu.Lock()
	f.c.kubelet["controller-0"] = "v1.29.4"
	f.c.mu.Unlock()
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("abort with every kubelet back: %v", err)
	}
	f.wantState(t, state.UpgradeAborted)
}

// After the restore, abort waits until the API server reports every control-plane pod Running
// and Ready at the from version (a restarted API server is not Ready until its caches sync):
// one that catches up within the verify timeout ends upgrade-aborted; one that does not ends
// upgrade-aborting-failed naming the pod.
func TestAbortWaitsForTheControlPlaneToBeReady(t *testing.T) {
	for _, tc := range []struct {
		name     string
		notReady int // answers with controller-0's API server not Ready; -1: every answer
		timeout  time.Duration
		want     state.State
	}{
		{"catches up", 2, time.Minute, state.UpgradeAborted},
		{"never ready", -1, 3 * time.Second, state.UpgradeAbortingFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T, f *fixture) {
				f.w.VerifyTimeout = tc.timeout
				f.at(t, state.UpgradedFirstMaster)
				asked := 0
				f.c.answer = func(host, cmd string) (string, bool) {
					if !strings.Contains(cmd, "get --raw /readyz\n") {
						return "", false
					}
					if asked++; tc.notReady >= 0 && asked > tc.notReady {
						return "", false
					}
					f.c.mu.Lock()
					defer f.c.mu.Unlock()
					return podNotReady(f.c.apiSays(), "kube-apiserver-controller-0"), true
				}
				err := f.w.Abort(t.Context())
				f.wantState(t, tc.want)
				if tc.want == state.UpgradeAborted && err != nil {
					t.Fatalf("abort: %v", err)
				}
				if tc.want != state.UpgradeAborted && (err == nil || !strings.Contains(err.Error(), "kube-system/kube-apiserver-controller-0 (Running, not Ready)")) {
					t.Errorf("abort: %v, want a failure naming controller-0's API server not Ready", err)
				}
				if asked < 2 {
					t.Errorf("the API server was asked %d times, want the abort to ask again while it is not ready", asked)
				}
			})
		})
	}
}

// podNotReady is the API server's answer says with the pod named name Running but not Ready.
func podNotReady(says, name string) string {
	i := strings.Index(says, `"name":"`+name+`"`)
	j := strings.Index(says[i:], `"status":{"phase":"Running"}`)
	return says[:i+j] + `"status":{"phase":"Running","conditions":[{"type":"Ready","status":"False"}]}` + says[i+j+len(`"status":{"phase":"Running"}`):]
}

// Abort puts right what an interrupted package install left on every node (the repair runs on
// each, before anything is decided), and a repair that fails refuses the abort, naming the host,
// with nothing written.
func TestAbortRepairsThePackages(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedNetworking)
	var mu sync.Mutex
	repaired := map[string]bool{}
	fail := "worker-0"
	f.c.answer = func(host, cmd string) (string, bool) {
		if !strings.Contains(cmd, "apt-mark hold") {
			return "", false
		}
		mu.Lock()
		defer mu.Unlock()
		repaired[host] = true
		return "held kubeadm again\n", host != fail
	}
	f.c.mu.Lock()
	f.c.results = map[string]runnertest.Result{"apt-mark hold": {RC: 1, Stderr: "kupgrade: apt-mark hold kubeadm failed\n"}}
	f.c.mu.Unlock()
	err := f.w.Abort(t.Context())
	if err == nil || !strings.Contains(err.Error(), "packages on worker-0") {
		t.Fatalf("abort with a repair that fails: %v, want refused naming worker-0", err)
	}
	f.wantState(t, state.UpgradedNetworking)
	mu.Lock()
	fail = ""
	mu.Unlock()
	if err := f.w.Abort(t.Context()); err != nil {
		t.Fatalf("abort: %v", err)
	}
	for _, h := range []string{"controller-0", "controller-1", "worker-0"} {
		if !repaired[h] {
			t.Errorf("abort did not repair the packages on %s", h)
		}
	}
}
