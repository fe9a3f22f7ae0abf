package upgrade

import (
	"fmt"

	"github.com/kupgrade/kupgrade/state"
)

// Plan describes the cluster for Next: which optional steps the inventory configures.
type Plan struct {
	PreAppUpdate  bool // kupgrade_playbooks names a pre-app-update playbook
	Storage       bool
	PostAppUpdate bool
	WorkerBatch   int // workers' kubelets upgraded this many at a time (default 1)
	// Uncordon: the controller was cordoned before its control plane (one-controller systems),
	// so it is uncordoned once every kubelet is upgraded, before complete.
	Uncordon bool
}

// Next returns the step that follows from u and its hosts, or done when nothing is left. A
// failed state resumes at its own step. An in-flight state has no next step: someone is running
// it, or it is stuck and needs `kupgrade recover`.
func (p Plan) Next(u state.Upgrade, hosts []state.Host) (act Action, done bool, err error) {
	s := u.State
	if s.InFlight() {
		return Action{}, false, fmt.Errorf("state %s is in flight: another kupgrade is running it; if it is stuck, run `kupgrade recover`: %w", s, state.ErrRefused)
	}
	if r, ok := s.RetryOf(); ok {
		return p.retry(r, u, hosts)
	}
	switch s {
	case state.UpgradeStarted:
		return Action{Step: state.StepDownloadImages}, false, nil
	case state.DownloadedImages:
		if p.PreAppUpdate {
			return Action{Step: state.StepPreAppUpdate}, false, nil
		}
		return Action{Step: state.StepNetworking}, false, nil
	case state.PreUpdatedApps:
		return Action{Step: state.StepNetworking}, false, nil
	case state.UpgradedNetworking:
		if p.Storage {
			return Action{Step: state.StepStorage}, false, nil
		}
		return p.controlPlane(state.StepFirstMaster, u, hosts)
	case state.UpgradedStorage, state.CordonComplete:
		return p.controlPlane(state.StepFirstMaster, u, hosts)
	case state.UpgradedFirstMaster:
		if len(controllers(hosts)) > 1 {
			return p.controlPlane(state.StepSecondMaster, u, hosts)
		}
		return p.afterControlPlane(u, hosts)
	case state.UpgradedSecondMaster:
		return p.afterControlPlane(u, hosts)
	case state.UpgradingKubelets, state.UncordonComplete:
		return p.kubelets(u, hosts)
	case state.UpgradeComplete:
		if p.PostAppUpdate {
			return Action{Step: state.StepPostAppUpdate}, false, nil
		}
		return Action{}, true, nil
	case state.PostUpdatedApps, state.UpgradeAborted:
		return Action{}, true, nil
	}
	return Action{}, false, fmt.Errorf("`upgrade run` does not know how to continue from state %s: %w", s, state.ErrRefused)
}

func (p Plan) retry(inFlight state.State, u state.Upgrade, hosts []state.Host) (Action, bool, error) {
	step, ok := state.StepOf(inFlight)
	if !ok {
		return Action{}, false, fmt.Errorf("no step runs in state %s: %w", inFlight, state.ErrRefused)
	}
	if step.Scope == state.ScopeControlPlane {
		// The retry runs on the host that was tried: each control-plane step sets its host's
		// target as it begins, in inventory order, so that is the last controller whose target
		// is to_version. (After a late failure its manifests are at the target too: the first
		// controller, done long before, must not be taken for it.)
		cs := controllers(hosts)
		for i := len(cs) - 1; i >= 0; i-- {
			if cs[i].TargetVersion == u.Target() {
				return Action{Step: step.Name, Hosts: []string{cs[i].Hostname}}, false, nil
			}
		}
		return p.controlPlane(step.Name, u, hosts)
	}
	return Action{Step: step.Name}, false, nil
}

// controlPlane picks the first controller, in inventory order, whose control plane is not
// recorded at the target yet.
func (p Plan) controlPlane(step string, u state.Upgrade, hosts []state.Host) (Action, bool, error) {
	for _, h := range controllers(hosts) {
		if h.TargetVersion != u.Target() || h.ControlPlaneVersion != u.Target() {
			return Action{Step: step, Hosts: []string{h.Hostname}}, false, nil
		}
	}
	return Action{}, false, fmt.Errorf("every controller already has target %s but the state is %s: %w", u.Target(), u.State, state.ErrRefused)
}

// afterControlPlane follows a hop's control plane: the next hop while the kubelets may wait for
// the last one (the skew policy allows them to stay at from_version), else the kubelets.
func (p Plan) afterControlPlane(u state.Upgrade, hosts []state.Host) (Action, bool, error) {
	if u.HopsLeft() > 0 && !u.KubeletsEachHop() {
		return Action{Step: state.StepNextHop}, false, nil
	}
	return p.kubelets(u, hosts)
}

// kubelets picks the next batch: controllers one at a time, then workers WorkerBatch at a time;
// when every host is upgraded-kubelet the next step is complete.
func (p Plan) kubelets(u state.Upgrade, hosts []state.Host) (Action, bool, error) {
	var workers []string
	for _, h := range hosts {
		if h.Status == state.UpgradedKubelet {
			continue
		}
		if h.Personality == state.Controller {
			return Action{Step: state.StepKubelets, Hosts: []string{h.Hostname}}, false, nil
		}
		workers = append(workers, h.Hostname)
	}
	if len(workers) == 0 {
		if u.HopsLeft() > 0 { // the kubelets follow every hop: this one is done
			return Action{Step: state.StepNextHop}, false, nil
		}
		if p.Uncordon && u.State == state.UpgradingKubelets {
			return Action{Step: state.StepUncordon}, false, nil
		}
		return Action{Step: state.StepComplete}, false, nil
	}
	n := max(p.WorkerBatch, 1)
	return Action{Step: state.StepKubelets, Hosts: workers[:min(n, len(workers))]}, false, nil
}

func controllers(hosts []state.Host) []state.Host {
	var out []state.Host
	for _, h := range hosts {
		if h.Personality == state.Controller {
			out = append(out, h)
		}
	}
	return out
}
