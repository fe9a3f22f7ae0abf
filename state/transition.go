package state

// The constructors of Change: one per legal kind of transition. Each checks what it can against
// the step table; the store checks the rest (the state, host status and lease it finds) in its
// transaction.

// Start moves the cluster from from into the state a step runs in, to, and takes the cluster's
// lease: the first write of an operation. For a per-host step it is the first host's write
// (OnHost, WithTarget); WithEvidence keeps the snapshot taken before.
func Start(cluster string, actor Actor, from, to State, lease LeaseSpec, opts ...ChangeOption) Change {
	c := build(cluster, actor, from, to, opts)
	c.acquire = &lease
	return c.check("start",
		rule(startable(from, to), "no step starts there"),
		rule(lease.Owner != "", "the lease has no owner"),
		c.noLeaseOpt())
}

// StartHost starts one more host of a batch (OnHost, required) whose operation owner already
// started: the state is already run and the lease already owner's.
func StartHost(cluster string, actor Actor, run State, owner string, opts ...ChangeOption) Change {
	c := build(cluster, actor, run, run, opts)
	c.leaseOwner = owner
	return c.check("start a host",
		rule(running(run), "no step runs there"),
		rule(owner != "", "no lease owner"),
		rule(c.host != WholeCluster, "no host"),
		c.noLeaseOpt())
}

// Finish records a success under owner's lease: from the state a step runs in to the state it
// ends in, or, for one host of a batch whose other hosts still run (OnHost), to the same state.
// The lease stays with owner unless ReleaseLease (the operation's last write). Finishing into
// upgrade-complete clears every host status.
func Finish(cluster string, actor Actor, from, to State, owner string, opts ...ChangeOption) Change {
	c := build(cluster, actor, from, to, opts)
	c.leaseOwner = owner
	c.release = c.leaseOpt == leaseRelease
	if to == UpgradeComplete {
		idle := HostIdle
		c.allHostsTo = &idle
	}
	return c.check("finish",
		rule(finishable(from, to) || (to == from && running(from) && c.host != WholeCluster), "no step ends there"),
		rule(owner != "", "no lease owner"))
}

// Fail is the one failing path of docs/states.md: from an in-flight state to its failed twin, or, for
// a host failed in a state that stays (upgrading-kubelets, a status left behind), to the same
// state; the host (OnHost) goes to its status's failed twin (HostStatus.FailedTo: idle, or
// draining-node-failed, uncordoning-node-failed). It releases the lease unless KeepLease, under
// cond; CountRecovery counts it as a recovery attempt.
func Fail(cluster string, actor Actor, from, to State, cond LeaseCond, opts ...ChangeOption) Change {
	c := build(cluster, actor, from, to, opts)
	c.leaseOwner, c.leaseNotLive = cond.owner, cond.notLive
	c.release = c.leaseOpt != leaseKeep
	twin, inFlight := from.FailedTwin()
	return c.check("fail",
		rule(!inFlight || to == twin, "not the failed twin"),
		rule(inFlight || (to == from && c.host != WholeCluster), "nothing in flight to fail"),
		rule(c.host == WholeCluster || c.hostTo == c.hostFrom.FailedTo(), "a failed host goes to its status's failed twin"),
		rule(cond.set, "no lease condition"))
}

// TakeOver takes the cluster's lease for an operation that runs in s, the state unchanged: an
// expired lease of another owner is taken over, a live one is a conflict.
func TakeOver(cluster string, actor Actor, s State, lease LeaseSpec, opts ...ChangeOption) Change {
	c := build(cluster, actor, s, s, opts)
	c.acquire = &lease
	return c.check("take over",
		rule(running(s), "no step runs there"),
		rule(lease.Owner != "", "the lease has no owner"),
		c.noLeaseOpt())
}

// NextHop moves an upgrade whose hop hop is done (its control plane, and its kubelets when they
// follow every hop) to the next hop, back at upgrade-started, and clears every host status; no
// live lease may be held, and an expired one is deleted (a hop begins with nobody's lease). The
// hop is compared as the state is.
func NextHop(cluster string, actor Actor, from State, hop int, opts ...ChangeOption) Change {
	c := build(cluster, actor, from, UpgradeStarted, append(opts[:len(opts):len(opts)], AtHop(hop)))
	idle, next := HostIdle, hop+1
	c.allHostsTo, c.leaseNotLive, c.hopTo, c.release = &idle, true, &next, true
	st, _ := StepNamed(StepNextHop)
	return c.check("next hop",
		rule(st.Allows(from), "next-hop does not start there"),
		rule(hop >= 0, "no hop"),
		rule(c.host == WholeCluster, "the next hop is about every host"),
		c.noLeaseOpt())
}

// MarkKubelet records host, whose kubelet already runs target (the version of hop hop), as
// upgraded-kubelet without running anything (moving the cluster into upgrading-kubelets if it is
// not there yet); no live lease may be held. The hop is compared as the state is: a runner that
// read an older hop, whose target that was, is refused (state/model/hops.pml, -DNOMARKHOP).
func MarkKubelet(cluster string, actor Actor, from State, host string, cur HostStatus, target string, hop int, opts ...ChangeOption) Change {
	c := build(cluster, actor, from, UpgradingKubelets, append(opts[:len(opts):len(opts)], OnHost(host, cur, UpgradedKubelet), WithTarget(target), AtHop(hop)))
	c.leaseNotLive = true
	st, _ := StepNamed(StepKubelets)
	return c.check("mark kubelet",
		rule(st.Allows(from), "the kubelets step does not start there"),
		rule(host != WholeCluster, "no host"),
		c.noLeaseOpt())
}

// HostOnly moves one host's status (OnHost, required) in state s, under cond.
func HostOnly(cluster string, actor Actor, s State, cond LeaseCond, opts ...ChangeOption) Change {
	c := build(cluster, actor, s, s, opts)
	c.leaseOwner, c.leaseNotLive = cond.owner, cond.notLive
	return c.check("host change",
		rule(c.host != WholeCluster, "no host"),
		rule(cond.set, "no lease condition"),
		c.noLeaseOpt())
}

// FailBefore records a step that failed on host before it could start there (the host
// unreachable, its sudo asking for a password, a probe that could not run): nothing went in
// flight, so the state s stays and no live lease may be held; a kubelet step's host goes from
// its settled status (from) to upgrading-kubelet-failed, flagged as a kubelet that failed in
// flight is, while any other step's host keeps its status (to == from): its event is the record.
func FailBefore(cluster string, actor Actor, s State, host string, from, to HostStatus, opts ...ChangeOption) Change {
	c := build(cluster, actor, s, s, append(opts[:len(opts):len(opts)], OnHost(host, from, to)))
	c.leaseNotLive = true
	return c.check("fail before the start",
		rule(!s.InFlight(), "the state is in flight: its operation fails through Fail"),
		rule(host != WholeCluster, "no host"),
		rule(!from.InFlight(), "the host is in flight: its operation fails through Fail"),
		rule(to == from || to == UpgradingKubeletFailed, "a host that failed before the start keeps its status or is upgrading-kubelet-failed"),
		c.noLeaseOpt())
}
