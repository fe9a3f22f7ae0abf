package state

import (
	"fmt"
	"time"
)

// CheckControlPlane is the pre-check of `kupgrade host upgrade HOST control-plane` (docs/states.md
// "Pre-checks"). It returns the state the step runs in (upgrading-first-master or
// upgrading-second-master) and redo = true when HOST's control plane already reports the target
// version (allowed: kubeadm skips identical manifests). A live lease of another operation is
// ErrConflict; every other refusal is ErrRefused (ErrNotFound for an unknown host).
func CheckControlPlane(u Upgrade, hosts []Host, hostname string, lease *Lease, now time.Time) (running State, redo bool, err error) {
	h, herr := checkHost(u, hosts, hostname)
	if herr != nil && h.Hostname == "" {
		return "", false, herr
	}
	if h.Personality != Controller {
		return "", false, fmt.Errorf("%w: host %s is a %s, not a controller: it has no control plane to upgrade; next for it: `%s`",
			ErrRefused, hostname, h.Personality, mustStep(StepKubelets).CommandFor(hostname))
	}
	if err := CheckLease(u, lease, now); err != nil {
		return "", false, err
	}
	if running, err = controlPlaneGate(u, controllers(hosts), h); err != nil {
		return "", false, err
	}
	// The host's in-flight refusal comes after the gate, whose message names the cluster state.
	if herr != nil {
		return "", false, herr
	}
	return running, h.ControlPlaneVersion == u.Target(), nil
}

// controlPlaneGate decides first or second master from the state, the number of controllers and
// which controller is already at the target.
func controlPlaneGate(u Upgrade, ctrls []Host, h Host) (State, error) {
	atTarget := func(c Host) bool { return c.TargetVersion == u.Target() }
	switch u.State {
	case UpgradedNetworking, UpgradedStorage, CordonComplete:
		return UpgradingFirstMaster, nil
	case UpgradedFirstMaster:
		if len(ctrls) < 2 {
			return "", refuse(u, "this one-controller system has no second master")
		}
		if atTarget(h) {
			return "", refuse(u, "%s is the first master, already upgraded to %s; upgrade another controller", h.Hostname, u.Target())
		}
		return UpgradingSecondMaster, nil
	case UpgradingFirstMasterFailed, UpgradingSecondMasterFailed:
		retry, _ := u.State.RetryOf()
		if !atTarget(h) {
			return "", refuse(u, "a retry runs on the controller that was tried (%s), not on %s", tried(u, ctrls), h.Hostname)
		}
		// In upgrading-second-master-failed both controllers have the target version: the one
		// that was tried is the one whose control plane does not report it yet, if any.
		if h.ControlPlaneVersion == u.Target() {
			for _, c := range ctrls {
				if c.Hostname != h.Hostname && atTarget(c) && c.ControlPlaneVersion != u.Target() {
					return "", refuse(u, "a retry runs on the controller that was tried (%s), not on %s", c.Hostname, h.Hostname)
				}
			}
		}
		return retry, nil
	}
	return "", refuse(u, "the control plane of %s cannot be upgraded now", h.Hostname)
}

// tried names the controllers a failed control-plane step may be retried on.
func tried(u Upgrade, ctrls []Host) string {
	name := "none recorded"
	for _, c := range ctrls {
		if c.TargetVersion == u.Target() {
			if name != "none recorded" {
				return name + " or " + c.Hostname
			}
			name = c.Hostname
		}
	}
	return name
}

// CheckKubelet is the pre-check of `kupgrade host upgrade HOST kubelet`. skip is true when the
// host's kubelet already reports the target version: the caller marks it upgraded-kubelet
// without running anything (unless --force). A host whose drain or uncordon failed is never
// skipped: kupgrade cordoned it, and its retry starts where it stopped (an uncordon only).
func CheckKubelet(u Upgrade, hosts []Host, hostname string, lease *Lease, now time.Time) (skip bool, err error) {
	h, herr := checkHost(u, hosts, hostname)
	if herr != nil && h.Hostname == "" {
		return false, herr
	}
	if err := CheckLease(u, lease, now); err != nil {
		return false, err
	}
	ctrls := controllers(hosts)
	switch {
	case u.State == UpgradingKubelets:
	case u.State == UpgradedSecondMaster:
	case u.State == UpgradedFirstMaster && len(ctrls) < 2:
	case u.State == UpgradedFirstMaster:
		return false, refuse(u, "upgrade the control plane of the second controller before any kubelet")
	default:
		return false, refuse(u, "kubelets are upgraded once the control plane is done")
	}
	if herr != nil {
		return false, herr
	}
	if h.Personality != Controller {
		var pending []string
		for _, c := range ctrls {
			if c.Status != UpgradedKubelet {
				pending = append(pending, c.Hostname)
			}
		}
		if len(pending) > 0 {
			return false, refuse(u, "controllers' kubelets go before workers': upgrade %v first", pending)
		}
	}
	return h.KubeletVersion == u.Target() && !h.Status.Failed(), nil
}
