package state

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The pre-checks of docs/states.md that need only what the store returns. They are pure: the caller
// reads the upgrade, hosts and lease, calls a check, and only then applies a Change whose
// expectations (From, HostFrom, lease) make the store re-check the same facts under its lock.
// Every refusal names the current state and the way out.

const recoverHint = "if it is stuck, run `kupgrade recover`"

// WayOut says what the operator can do in state s: for an in-flight state, wait or recover; for
// a deletable state, delete; otherwise the commands of the steps that may start from s.
func WayOut(s State) string {
	if s.InFlight() {
		return "an operation is running; " + recoverHint
	}
	var next []string
	for _, st := range steps {
		cmd := "`" + st.Command + "`"
		if st.Allows(s) && st.Name != StepAbort && !slices.Contains(next, cmd) {
			next = append(next, cmd)
		}
	}
	if slices.Contains(deletableStates, s) {
		next = append(next, "`kupgrade upgrade delete`")
	}
	if len(next) == 0 {
		return "nothing can follow it"
	}
	return "next: " + strings.Join(next, " or ")
}

func refuse(u Upgrade, format string, args ...any) error {
	return fmt.Errorf("%w: upgrade of cluster %q is in state %s: %s; %s",
		ErrRefused, u.Cluster, u.State, fmt.Sprintf(format, args...), WayOut(u.State))
}

// CheckStep refuses a step that may not start from the upgrade's current state.
func CheckStep(u Upgrade, step Step) error {
	if step.Allows(u.State) {
		return nil
	}
	return refuse(u, "step %s cannot start from it", step.Name)
}

// CheckDelete refuses to delete an upgrade that has not ended (docs/states.md: delete from
// upgrade-complete, post-updated-apps, post-updating-apps-failed or upgrade-aborted).
func CheckDelete(u Upgrade) error {
	if slices.Contains(deletableStates, u.State) {
		return nil
	}
	return refuse(u, "an upgrade can be deleted only once complete or aborted (to stop it: `%s`)", mustStep(StepAbort).Command)
}

// CheckComplete refuses to complete an upgrade before every host reports upgraded-kubelet.
func CheckComplete(u Upgrade, hosts []Host) error {
	if err := CheckStep(u, mustStep(StepComplete)); err != nil {
		return err
	}
	if u.HopsLeft() > 0 {
		return refuse(u, "%s is done; %d more to go before the upgrade can complete, next: `%s`", u.HopLabel(), u.HopsLeft(), mustStep(StepNextHop).Command)
	}
	var pending []string
	for _, h := range hosts {
		if h.Status != UpgradedKubelet {
			pending = append(pending, fmt.Sprintf("%s (%s)", h.Hostname, h.Status))
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("%w: upgrade of cluster %q is in state %s: the kubelet of %s is not upgraded yet; next: `%s`",
			ErrRefused, u.Cluster, u.State, strings.Join(pending, ", "), mustStep(StepKubelets).Command)
	}
	return nil
}

// CheckNextHop refuses the next hop while this one's control plane is not at its target on
// every controller (nor its kubelets, when they follow every hop), and after the last hop.
func CheckNextHop(u Upgrade, hosts []Host) error {
	if err := CheckStep(u, mustStep(StepNextHop)); err != nil {
		return err
	}
	if u.HopsLeft() == 0 {
		return refuse(u, "%s is the last hop: no hop follows", u.Target())
	}
	var pending []string
	for _, h := range hosts {
		if h.Personality == Controller && h.ControlPlaneVersion != u.Target() {
			pending = append(pending, fmt.Sprintf("%s (control plane %s)", h.Hostname, orNone(h.ControlPlaneVersion)))
		} else if u.KubeletsEachHop() && h.Status != UpgradedKubelet {
			pending = append(pending, fmt.Sprintf("%s (kubelet %s)", h.Hostname, orNone(string(h.Status))))
		}
	}
	if len(pending) > 0 {
		return refuse(u, "%s is not done on %s", u.HopLabel(), strings.Join(pending, ", "))
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// CheckLease refuses (ErrConflict) while another operation holds a live lease on the cluster:
// nothing else may start meanwhile, whatever the state allows.
func CheckLease(u Upgrade, lease *Lease, now time.Time) error {
	if !lease.Live(now) {
		return nil
	}
	return fmt.Errorf("%w: upgrade of cluster %q is in state %s and %s; wait for it, or if its process is gone run `kupgrade recover --force`, or if it is stuck `kupgrade recover` once the lease has expired",
		ErrConflict, u.Cluster, u.State, lease.Holder(now))
}

// checkHost finds hostname and refuses it while work on it is in flight.
func checkHost(u Upgrade, hosts []Host, hostname string) (Host, error) {
	for _, h := range hosts {
		if h.Hostname != hostname {
			continue
		}
		if h.Status.InFlight() {
			return h, fmt.Errorf("%w: host %s of cluster %q is %s (cluster state %s); %s",
				ErrRefused, hostname, u.Cluster, h.Status, u.State, recoverHint)
		}
		return h, nil
	}
	return Host{}, fmt.Errorf("%w: host %s is not in cluster %q (hosts come from the inventory at `kupgrade upgrade start`)",
		ErrNotFound, hostname, u.Cluster)
}

func controllers(hosts []Host) []Host {
	var cs []Host
	for _, h := range hosts {
		if h.Personality == Controller {
			cs = append(cs, h)
		}
	}
	return cs
}

func mustStep(name string) Step {
	st, ok := StepNamed(name)
	if !ok {
		panic("state: no step " + name)
	}
	return st
}
