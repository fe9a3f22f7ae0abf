package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Change is one transition, applied by Store.Apply in one transaction with compare-and-set.
// Every expectation it names is checked inside the transaction; if any does not hold, nothing is
// written and ErrConflict is returned (wrapped, with what was found instead).
//
// A Change is built only by the constructors of this file, one per legal kind of transition
// (Start, StartHost, Finish, Fail, TakeOver, NextHop, MarkKubelet, HostOnly), which check it
// against the step table; ChangeOptions add its optional parts. A constructor given an illegal
// transition returns a Change that carries the reason, and Apply refuses it, like the zero
// Change, with ErrBadInput before it reads the database. The store reads a Change through the
// accessors of change_read.go.
type Change struct {
	cluster, reason string
	actor           Actor
	from, to        State

	host             string // WholeCluster when the change is about no one host
	hostFrom, hostTo HostStatus
	target           string      // when not "", host's target_version := target
	backups          *Backups    // the host's backups record, written only when it has none
	allHostsTo       *HostStatus // every host of the upgrade (next-hop and complete clear them all)

	leaseOwner   string     // the lease must be held by this owner (live or expired), or absent
	leaseNotLive bool       // there must be no live lease held by anyone
	acquire      *LeaseSpec // take the cluster's lease (an expired one of another owner is taken over)
	release      bool       // delete the cluster's lease row, whoever holds it

	incRecovery bool
	evidence    json.RawMessage

	atHop *int   // the upgrade must be at this hop (compare-and-set, as the state)
	atGen *int64 // the upgrade's lease generation must still be this one: no operation started since
	hopTo *int   // the upgrade moves to this hop (next-hop)

	leaseOpt leaseOpt // what the options asked of the lease, for the constructor to judge
	err      error    // why the change is not legal; Apply refuses it
}

// LeaseSpec is the lease a change takes.
type LeaseSpec struct {
	Owner     string
	Operation string // e.g. "control-plane@controller-1"
	TTL       time.Duration
}

// LeaseCond is the lease condition a failure is recorded under: HeldBy, NotLive or Forced.
type LeaseCond struct {
	owner   string
	notLive bool
	set     bool
}

// HeldBy: the lease must be held by owner (live or expired), or absent; the runner recording its
// own failure.
func HeldBy(owner string) LeaseCond { return LeaseCond{owner: owner, set: owner != ""} }

// NotLive: no one may hold a live lease (`upgrade failed`, recover, watch).
func NotLive() LeaseCond { return LeaseCond{notLive: true, set: true} }

// Forced: whoever holds the lease, live or not (recover --force).
func Forced() LeaseCond { return LeaseCond{set: true} }

type leaseOpt int

const (
	leaseAsIs leaseOpt = iota
	leaseRelease
	leaseKeep
)

// ChangeOption adds an optional part to a Change.
type ChangeOption func(*Change)

// AtHop: the change applies only while the upgrade is at hop (Upgrade.Hop): an operation read in
// one hop never starts in the next.
func AtHop(hop int) ChangeOption { return func(c *Change) { c.atHop = &hop } }

// AtGeneration: the change applies only while the upgrade's lease generation (Upgrade.Generation)
// is gen, that is when no operation has started since the row was read at gen. A host's status
// can come back to the one read (a kubelet step that failed back to idle) with its node changed
// under it; the generation cannot.
func AtGeneration(gen int64) ChangeOption { return func(c *Change) { c.atGen = &gen } }

// Because records reason in the change's event.
func Because(reason string) ChangeOption { return func(c *Change) { c.reason = reason } }

// WithEvidence stores ev (JSON) in the change's event; nil stores none.
func WithEvidence(ev json.RawMessage) ChangeOption { return func(c *Change) { c.evidence = ev } }

// OnHost moves host from status from (checked) to status to.
func OnHost(host string, from, to HostStatus) ChangeOption {
	return func(c *Change) { c.host, c.hostFrom, c.hostTo = host, from, to }
}

// WithTarget sets the target version of the change's host.
func WithTarget(version string) ChangeOption { return func(c *Change) { c.target = version } }

// WithBackupsBefore records b as what the change's host was like before its first control-plane
// step of this upgrade; a host that has a record keeps it (a retry does not move the baseline).
func WithBackupsBefore(b Backups) ChangeOption { return func(c *Change) { c.backups = &b } }

// ReleaseLease gives the lease back with a Finish: the last write of an operation.
func ReleaseLease() ChangeOption { return func(c *Change) { c.leaseOpt = leaseRelease } }

// KeepLease leaves the lease with its owner after a Fail: a batch's hosts are failed one by
// one, and only the last write releases the lease, so that no host is in flight without one.
func KeepLease() ChangeOption { return func(c *Change) { c.leaseOpt = leaseKeep } }

// CountRecovery counts a Fail as one more recovery attempt (recover, watch).
func CountRecovery() ChangeOption { return func(c *Change) { c.incRecovery = true } }

func build(cluster string, actor Actor, from, to State, opts []ChangeOption) Change {
	c := Change{cluster: cluster, actor: actor, from: from, to: to}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// check records the first rule c breaks; every constructor ends with it.
func (c Change) check(kind string, rules ...error) Change {
	common := []error{
		rule(c.cluster != "", "no cluster"),
		rule(c.from.Valid(), fmt.Sprintf("from %q is not a state", c.from)),
		rule(c.to.Valid(), fmt.Sprintf("to %q is not a state", c.to)),
		rule(c.target == "" || c.host != WholeCluster, "a target version needs a host"),
		rule(c.backups == nil || c.host != WholeCluster && c.backups.Recorded(), "a backups record needs a host and its tags"),
		rule(!c.incRecovery || kind == "fail", "only a failure counts as a recovery attempt"),
	}
	for _, err := range append(common, rules...) {
		if err != nil {
			c.err = fmt.Errorf("%w: %s of cluster %q from %s to %s: %v", ErrBadInput, kind, c.cluster, c.from, c.to, err)
			return c
		}
	}
	return c
}

func rule(ok bool, broken string) error {
	if ok {
		return nil
	}
	return errors.New(broken)
}

// noLeaseOpt: ReleaseLease and KeepLease belong to Finish and Fail only.
func (c Change) noLeaseOpt() error {
	return rule(c.leaseOpt == leaseAsIs, "the lease is not released or kept by this kind of change")
}

// running reports whether s is the state some step runs in (in flight, or upgrading-kubelets).
func running(s State) bool {
	for _, st := range steps {
		if st.Running != "" && st.Running == s {
			return true
		}
	}
	return false
}

// startable reports whether some step starts from from and runs in to.
func startable(from, to State) bool {
	for _, st := range steps {
		if st.Running != "" && st.Running == to && st.Allows(from) {
			return true
		}
	}
	return false
}

// finishable reports whether some step that runs in from ends in to.
func finishable(from, to State) bool {
	for _, st := range steps {
		if st.Running != "" && st.Running == from && st.Done == to {
			return true
		}
	}
	return false
}
