package recovery

import (
	"slices"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// RecoverCommand is the next command for an operation in flight that no live lease covers.
const RecoverCommand = "kupgrade recover"

// RecoverForceCommand recovers an operation whose holder's lease is live though the holder is
// gone (a process of this machine, killed): Next's answer then.
const RecoverForceCommand = RecoverCommand + " --force"

// IsRecover reports whether cmd is RecoverCommand, with or without --force.
func IsRecover(cmd string) bool { return cmd == RecoverCommand || cmd == RecoverForceCommand }

// NextIn is what the next command of a cluster depends on. Each view fills in what it knows:
// `upgrade show` and `upgrade plan` know the inventory's plan, the status page only the rows.
type NextIn struct {
	State    state.State
	Host     string // the host worked on: the failed one, or the one a failed state retries on
	InFlight bool   // the state, or one of the cluster's hosts, is in flight
	Lease    *state.Lease
	Now      time.Time
	// Done: the plan `upgrade run` follows has nothing left to run. Without a plan (the status
	// page knows no inventory), a state `upgrade delete` accepts and that is not failed counts.
	Done bool
}

// Next is the one answer to "what now" for a cluster, which the status page, `upgrade show`,
// `upgrade plan`, the fleet and -o json all print: wait while a live lease holds the cluster
// (wait says who), but `kupgrade recover --force` when its holder is a process of this machine
// that is gone (GoneHolder: nothing renews that lease), `kupgrade recover` for an operation in
// flight nobody holds, the retry of a
// failed operation (on its host), `kupgrade upgrade run` to go on, `kupgrade upgrade delete` once
// the upgrade has ended. cmd and wait are both "" when nothing is left to type.
func Next(in NextIn) (cmd, wait string) {
	live := in.Lease.Live(in.Now)
	switch {
	case live && (in.InFlight || in.State.InFlight()):
		if _, gone := goneHolder(in.Lease); gone {
			return RecoverForceCommand, ""
		}
		return "", in.Lease.Holder(in.Now) + "; wait for it"
	case live:
		return "", in.Lease.Holder(in.Now) + "; wait for it"
	case in.InFlight || in.State.InFlight():
		return RecoverCommand, ""
	case in.Done || !in.State.Failed() && slices.Contains(state.DeletableStates(), in.State):
		if slices.Contains(state.DeletableStates(), in.State) {
			return "kupgrade upgrade delete", ""
		}
		return "", ""
	case in.State.Failed(), in.State == state.UpgradingKubelets && in.Host != "":
		if c := state.RetryCommand(in.State, in.Host); c != "" {
			return c, ""
		}
	}
	if !in.State.Valid() {
		return "", ""
	}
	return "kupgrade upgrade run", ""
}

// WithFlags completes cmd with global flags (--db, -i, kept so that the command works where it
// is pasted) and the cluster, which a page or table over many clusters always names.
func WithFlags(cmd, cluster string, flags []string) string {
	if cmd == "" {
		return ""
	}
	parts := append([]string{cmd}, flags...)
	return strings.Join(append(parts, "--cluster", cluster), " ")
}
