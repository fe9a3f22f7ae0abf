package state

import (
	"encoding/json"
	"fmt"
)

// What a Change says, for the store that applies it. A Change cannot be altered through these.

// Err reports why c may not be applied: the rule its constructor found broken, or that it is the
// zero Change (built by no constructor). Apply returns it, wrapping ErrBadInput, before anything
// else.
func (c Change) Err() error {
	if c.err != nil {
		return c.err
	}
	if c.cluster == "" {
		return fmt.Errorf("%w: an empty change (build one with state.Start, Finish, Fail, ...)", ErrBadInput)
	}
	return nil
}

// Cluster is the cluster whose upgrade the change moves.
func (c Change) Cluster() string { return c.cluster }

// Actor is who makes the change (ActorRunner, ActorCLI, ActorRecover, ActorWatch).
func (c Change) Actor() Actor { return c.actor }

// Reason is recorded in the change's event.
func (c Change) Reason() string { return c.reason }

// From is the state the change expects to find.
func (c Change) From() State { return c.from }

// To is the state the change writes; state_entered_at moves only when it differs from From.
func (c Change) To() State { return c.to }

// Host is the host the change is about, WholeCluster for none.
func (c Change) Host() string { return c.host }

// HostFrom is the status Host must have (checked whenever Host is not WholeCluster).
func (c Change) HostFrom() HostStatus { return c.hostFrom }

// HostTo is the status Host gets.
func (c Change) HostTo() HostStatus { return c.hostTo }

// AtGeneration is the lease generation the upgrade must still be at; ok is false when the change
// names none.
func (c Change) AtGeneration() (gen int64, ok bool) {
	if c.atGen == nil {
		return 0, false
	}
	return *c.atGen, true
}

// AtHop is the hop the upgrade must be at; ok is false when the change names none.
func (c Change) AtHop() (hop int, ok bool) {
	if c.atHop == nil {
		return 0, false
	}
	return *c.atHop, true
}

// HopTo is the hop the change moves the upgrade to; ok is false when it keeps its hop.
func (c Change) HopTo() (hop int, ok bool) {
	if c.hopTo == nil {
		return 0, false
	}
	return *c.hopTo, true
}

// Target, when not "", is Host's new target_version.
func (c Change) Target() string { return c.target }

// BackupsBefore is the backups record the change writes on a host that has none (nil: none).
func (c Change) BackupsBefore() *Backups { return c.backups }

// AllHostsTo is the status every host of the upgrade gets; ok is false when they keep theirs.
func (c Change) AllHostsTo() (s HostStatus, ok bool) {
	if c.allHostsTo == nil {
		return HostIdle, false
	}
	return *c.allHostsTo, true
}

// LeaseOwner, when not "", is who must hold the lease (live or expired), if there is one.
func (c Change) LeaseOwner() string { return c.leaseOwner }

// LeaseNotLive: no one may hold a live lease.
func (c Change) LeaseNotLive() bool { return c.leaseNotLive }

// AcquireLease is the lease the change takes; ok is false when it takes none.
func (c Change) AcquireLease() (l LeaseSpec, ok bool) {
	if c.acquire == nil {
		return LeaseSpec{}, false
	}
	return *c.acquire, true
}

// ReleasesLease: the change deletes the cluster's lease row, whoever holds it (its conditions have
// already proven the caller may).
func (c Change) ReleasesLease() bool { return c.release }

// CountsRecovery: the change adds one to the upgrade's recovery attempts.
func (c Change) CountsRecovery() bool { return c.incRecovery }

// Evidence is stored in the change's event (nil for none); the caller gets a copy.
func (c Change) Evidence() json.RawMessage { return append(json.RawMessage(nil), c.evidence...) }
