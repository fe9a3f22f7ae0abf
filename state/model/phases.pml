/*
 * phases.pml: one host's kubelet step in its phases (docs/states.md "Host statuses") as a Promela
 * model for Spin, under the lease protocol of lease.pml. `go test ./state/model` checks it;
 * model_test.go has the exact commands.
 *
 * What is modelled
 *   - The host's status hs, as kube_host_upgrade.status: IDLE (NULL), DRAINING (draining-node),
 *     DFAILED (draining-node-failed), KUBELET (upgrading-kubelet), KFAILED
 *     (upgrading-kubelet-failed), UNCORDON (uncordoning-node), UFAILED (uncordoning-node-failed),
 *     UPGRADED (upgraded-kubelet); the cluster's generation and
 *     the lease (owner, generation, live or expired), as in lease.pml.
 *   - The node as it really is, changed only by the commands the phases run: mark (the
 *     kupgrade.io/cordoned annotation), cord (spec.unschedulable), bin (the kubelet binary: 0 the
 *     old version, 1 the target) and rkv (the version the running kubelet reports). It starts
 *     at the old version, or with the target installed by hand (restarted or not).
 *   - The commands of each phase (playbooks/kubelet.yml): the drain's cordon (annotate, then
 *     cordon, then drain), the kubelet's install (bin := 1) and restart (rkv := bin), the
 *     uncordon (only when the mark is there: uncordon, then take the mark off). A command is a
 *     process of its own behind the host fence (a lock stamped with the lease's generation, as in
 *     lease.pml): the Host process ends it whenever it likes, after any prefix of its effects,
 *     and it succeeds only when all of them happened, so a command cut by a kill or a lost
 *     connection leaves a partial effect, and one that outlives its runner lands later.
 *   - Two runners (`upgrade run`, a retry, a second process, an operator's `host upgrade HOST
 *     kubelet -f`), each walking the step as kubeletExec does: read the row (the pre-check:
 *     nothing in flight, no live lease), and for a host not in a failed twin ask the API server
 *     whether the node is settled (running the target, kupgrade's mark gone: confirmSkips), then
 *     either mark the host upgraded-kubelet (state.MarkKubelet: compare-and-set on the status
 *     and on the generation read with it, no live lease) or start: compare-and-set on the
 *     status, take the lease (gen++) and enter the phase the status says
 *     (HostStatus.KubeletEntry). Each phase's commands run in order; a phase that
 *     succeeds moves the host to the next (HostStatus.NextKubeletPhase) with compare-and-set on
 *     the status, owner and generation, the last move releasing the lease; one that fails
 *     records the phase's failed twin (draining-node-failed, upgrading-kubelet-failed,
 *     uncordoning-node-failed) the
 *     same way. A runner may give up at any wait (the audit then fails its phase).
 *   - SIGKILL of one runner at any moment (an `unless` escape), leases expiring at any moment,
 *     the watch audit (and `kupgrade recover`) failing an in-flight status whose lease expired to
 *     its failed twin.
 *
 * What is abstracted, and why that is sound
 *   - What lease.pml proves is taken as given: database outages and renewals (as in hops.pml),
 *     the audit's read before its compare-and-set. `upgrade failed --force` is not modelled
 *     apart: a lease may expire at any moment, so the audit already fails an operation whose
 *     runner is alive and about to go on, which is all a forced fail adds.
 *   - Whether a runner considers the skip is left free: any runner at any view may (its binary
 *     at the target, no -f) or may not. That covers every version `kubelet --version` can read
 *     and the operator's -f, a run that does not skip a settled node. The gate that stops a runner whose lease is
 *     lost from starting a task is left out: a runner may always be slower than its lease, so
 *     the fence's stamp is what stops it, and the model checks that it does.
 *   - One host, one hop, the cluster state upgrading-kubelets throughout: a batch's hosts share a
 *     lease but each moves by its own compare-and-set, so a host of a batch is this host.
 *   - The drain is one command with the cordon (its failure, a budget that blocks, leaves the
 *     node cordoned); kubeadm upgrade node and the kubeadm install change nothing the properties
 *     read and are left out; Ready is left out (the restart is what makes the running kubelet
 *     the target; Ready follows, and the skip asks for it as well, which only skips less).
 *   - A node cordoned by someone else is not modelled: the cordon and the uncordon leave it
 *     untouched (no mark), so nothing here could change it.
 *   - Numbers: two runners, MAXGEN starts in all (a runner loops, so it also retries): two
 *     generations are what every broken variant below needs (a run, then a stale or a retried
 *     one); three were checked once, safety only (17 million states, no error).
 *
 * Properties
 *   P1  a node kupgrade cordoned is never left cordoned (nor marked) while the host is recorded
 *       upgraded-kubelet (monitor Inv, at every step).
 *   P2  a host recorded upgraded-kubelet runs the target kubelet: its restart happened (Inv).
 *   P3  the retry of a failed uncordon never drains again: no cordon starts, and none lands,
 *       for an operation that began in uncordoning-node-failed (assert where the fence lets the
 *       cordon in and where it takes effect).
 *   P4  under weak fairness, every in-flight host status ends upgraded-kubelet or a failed twin
 *       (ltl p4).
 *   I   in flight <=> a lease row, whose generation is the cluster's (Inv).
 *
 * Broken variants, each must fail: -DSKIPBINARY (the skip on the binary's version alone: P2,
 * P1), -DRETRYDRAINS (a retry from uncordoning-node-failed drains again: P3), -DNOSTAMP (the
 * fence without its generation stamp: a stale runner's cordon lands after the host is
 * upgraded: P1), -DNOMARKGEN (the mark compares the status only, not the generation, and a
 * failed kubelet phase goes back to idle as it did before upgrading-kubelet-failed: a node
 * settled when it was read is cordoned by a -f run that fails back to idle before the mark:
 * P1; either rule alone is enough, the failed twin leaves no status to come back to), -DUNMARKFIRST (the uncordon takes the mark off before it uncordons: a cut between them
 * leaves a cordon nobody lifts: P1), -DOLDAUDIT (the audit fails upgrading-kubelet only: P4).
 */

#define NR     2 /* runners */
#define MAXGEN 2 /* starts in all */

mtype = { IDLE, DRAINING, DFAILED, KUBELET, KFAILED, UNCORDON, UFAILED, UPGRADED };

/* commands */
#define CORDON  1
#define INSTALL 2
#define RESTART 3
#define UNCORD  4

/* The database. */
mtype hs = IDLE;
byte  gen = 0;
byte  lowner = 0;     /* lease owner: 0 none, else runner id + 1 */
byte  lgen = 0;
bool  llive = false;

/* The node. */
bool mark = false;    /* kupgrade.io/cordoned */
bool cord = false;    /* spec.unschedulable */
bit  bin = 0;         /* the kubelet binary's version: 1 the target */
bit  rkv = 0;         /* the running kubelet's version */

/* The host fence and the command holding it. */
bool fheld = false;
byte fstamp = 0;      /* highest generation the fence has seen */
byte krun = 0;        /* runner id + 1 of the command running, 0 none */
byte kcmd = 0;
byte kg = 0;          /* its generation */
bool kdone[NR];
bool kok[NR];
bool killed[NR];

bool fromuf[MAXGEN + 1]; /* ghost: generation g's operation began in uncordoning-node-failed */

#define INFLIGHT(s) (s == DRAINING || s == KUBELET || s == UNCORDON)
#define INV ((INFLIGHT(hs) == (lowner != 0)) && (lowner == 0 || lgen == gen))
#define NOLIVE (lowner == 0 || !llive)

#ifdef NOMARKGEN
#define MARKGEN true
#else
#define MARKGEN (gen == rg)
#endif

/* twin is hostFailedTwin: the status failing phase s writes. */
inline twin(s, to) {
	if
	:: s == DRAINING -> to = DFAILED
#ifdef NOMARKGEN
	:: s == KUBELET -> to = IDLE  /* as before upgrading-kubelet-failed */
#else
	:: s == KUBELET -> to = KFAILED
#endif
	:: s == UNCORDON -> to = UFAILED
	fi
}

/* release ends the operation in flight: the host's status written, the lease gone. */
inline release(to) {
	hs = to; lowner = 0; lgen = 0; llive = false
}

/* cmd runs command c of generation g through the fence and waits for its end; ok says it
 * succeeded. The runner may give up instead (the fence refused it, or it stopped waiting). */
inline cmd(c) {
	ok = false;
	if
	:: atomic {
#ifdef NOSTAMP
		!fheld -> fheld = true;
#else
		!fheld && g >= fstamp -> fheld = true; fstamp = g;
#endif
		assert(c != CORDON || !fromuf[g]);  /* P3 */
		krun = me + 1; kcmd = c; kg = g; kdone[me] = false; kok[me] = false
	   };
	   kdone[me];
	   ok = kok[me]
	:: skip
	fi
}

/* move records the phase's end with compare-and-set on the status, owner and generation: the
 * next phase on success (upgraded-kubelet after the last, which releases the lease), else the
 * phase's failed twin. A compare that fails writes an evidence event only, and the runner stops. */
inline move() {
	atomic {
		if
		:: hs == at && lowner == me + 1 && lgen == g ->
			if
			:: ok && at == DRAINING -> hs = KUBELET; at = KUBELET
			:: ok && at == KUBELET -> hs = UNCORDON; at = UNCORDON
			:: ok && at == UNCORDON -> release(UPGRADED); at = 0
			:: !ok -> twin(at, nx); release(nx); at = 0
			fi
		:: else -> at = 0
		fi
	}
}

/* walk runs the phases from at until the host is upgraded, a phase fails or the runner stops. */
inline walk() {
	do
	:: at == DRAINING -> cmd(CORDON); move()
	:: at == KUBELET -> cmd(INSTALL); if :: ok -> cmd(RESTART) :: else -> skip fi; move()
	:: at == UNCORDON -> cmd(UNCORD); move()
	:: at == 0 -> break
	:: at != 0 -> break  /* gives up on the database: the audit fails the phase */
	od
}

proctype Runner(byte me) {
	mtype rs, at, nx;
	byte g, rg;
	bool ok, sk;
	{
end:		do
		:: atomic { rs = hs; rg = gen; ok = !INFLIGHT(rs) && NOLIVE };  /* the pre-check */
		   if
		   :: !ok -> break  /* refused: in flight, or another's live lease */
		   :: else -> skip
		   fi;
#ifdef SKIPBINARY
		   atomic { sk = bin == 1 && rs != DFAILED && rs != KFAILED && rs != UFAILED };  /* `kubelet --version` alone */
#else
		   if  /* a skip candidate, or not (its binary is not at the target, or -f) */
		   :: rs != DFAILED && rs != KFAILED && rs != UFAILED -> atomic { sk = rkv == 1 && !mark }  /* confirmSkips */
		   :: true -> sk = false
		   fi;
#endif
		   if
		   :: sk ->
			atomic {
				if
				:: hs == rs && MARKGEN && NOLIVE -> hs = UPGRADED
				:: else -> skip  /* a conflict: nothing written */
				fi
			};
			break  /* marked, or refused: this run ends */
		   :: else ->
			atomic {
				if
				:: hs == rs && NOLIVE && gen < MAXGEN ->
					gen++; g = gen; lowner = me + 1; lgen = g; llive = true;
					if
#ifndef RETRYDRAINS
					:: rs == UFAILED -> at = UNCORDON; fromuf[g] = true
#else
					:: rs == UFAILED -> at = DRAINING; fromuf[g] = true
#endif
					:: else -> at = DRAINING
					fi;
					hs = at
				:: else -> at = 0  /* refused: the status moved, a live lease, or no start left */
				fi
			};
			if
			:: at == 0 -> break
			:: else -> walk()
			fi
		   fi;
		   rs = 0; at = 0; nx = 0; g = 0; rg = 0; ok = false; sk = false
		od
	} unless { atomic { killed[me] -> rs = 0; at = 0; nx = 0; g = 0; rg = 0; ok = false; sk = false } }
}

/* Host ends the command holding the fence, after some prefix of its effects; it succeeds only
 * when all of them happened. */
active proctype Host() {
	bool ok;
end:	do
	:: atomic {
		fheld ->
		ok = false;
		if
		:: kcmd == CORDON ->
			assert(!fromuf[kg]);  /* P3: no cordon lands for a retry of a failed uncordon */
			if
			:: skip
			:: mark = true
			:: mark = true; cord = true
			:: mark = true; cord = true; ok = true
			fi
		:: kcmd == INSTALL ->
			if
			:: skip
			:: bin = 1
			:: bin = 1; ok = true
			fi
		:: kcmd == RESTART ->
			if
			:: skip
			:: rkv = bin
			:: rkv = bin; ok = true
			fi
		:: kcmd == UNCORD && !mark -> ok = true  /* not cordoned by kupgrade: left as it is */
		:: kcmd == UNCORD && mark ->
			if
			:: skip
#ifdef UNMARKFIRST
			:: mark = false
			:: mark = false; cord = false
			:: mark = false; cord = false; ok = true
#else
			:: cord = false
			:: cord = false; mark = false
			:: cord = false; mark = false; ok = true
#endif
			fi
		fi;
		kok[krun - 1] = ok; kdone[krun - 1] = true;
		fheld = false; krun = 0; kcmd = 0; kg = 0; ok = false
	   }
	od
}

active proctype Kill() {
	if
	:: killed[0] = true
	:: killed[1] = true
	:: skip
	fi
}

/* Watch is the audit (and `kupgrade recover`): an in-flight status whose lease expired is failed
 * to its twin. */
active proctype Watch() {
	mtype to;
end:	do
#ifdef OLDAUDIT
	:: atomic { hs == KUBELET && lowner != 0 && !llive -> release(IDLE) }
#else
	:: atomic { INFLIGHT(hs) && lowner != 0 && !llive -> twin(hs, to); release(to); to = 0 }
#endif
	od
}

active proctype Clock() {
end:	do
	:: atomic { lowner != 0 && llive -> llive = false }
	od
}

/* Inv checks P1, P2 and I at every step. */
active proctype Inv() {
end:	atomic {
		!(INV && (hs != UPGRADED || (!cord && !mark && rkv == 1))) ->
		assert(INV);
		assert(hs != UPGRADED || rkv == 1);          /* P2 */
		assert(hs != UPGRADED || (!cord && !mark))   /* P1 */
	}
}

init {
	atomic {
		if
		:: skip                 /* the old version */
		:: bin = 1              /* the target installed by hand, not restarted */
		:: bin = 1; rkv = 1     /* ... and restarted: the node is settled */
		fi;
		run Runner(0); run Runner(1)
	}
}

ltl p4 { [] (INFLIGHT(hs) -> <> (hs == UPGRADED || hs == DFAILED || hs == KFAILED || hs == UFAILED || hs == IDLE)) }
