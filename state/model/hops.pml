/*
 * hops.pml: an upgrade across several minors (docs/states.md "Several minors: hops") as a Promela
 * model for Spin, on top of the lease protocol of lease.pml. `go test ./state/model` checks it;
 * model_test.go has the exact commands.
 *
 * What is modelled
 *   - The upgrade row: st, the hop running (hop, 0..NH-1), the generation gen and the lease
 *     (owner, generation, live or expired), as in lease.pml. Each hop is one step on one host:
 *     STARTED (upgrade-started, and every state a step starts from) -> INFLIGHT -> DONE (the hop's
 *     work is done: upgraded-*-master, upgrading-kubelets) or FAILED (its failed twin, from which
 *     the step starts again). From DONE, next-hop (a store step) moves to the following hop, back
 *     at STARTED, or complete ends the run.
 *   - Two runners (`upgrade run`, a retry, a second process or an operator's step commands),
 *     each walking the upgrade as `upgrade run` does: read the row (the view the checks run on),
 *     then take the step the view allows in one compare-and-set. Between the read and the write
 *     anything may happen: a runner may hold a stale hop for a whole hop or more.
 *       start     compare-and-set on the state AND the hop read (state.AtHop), takes the lease
 *                 (gen++), then the command runs on the host behind the host fence (a lock
 *                 stamped with the generation, as in lease.pml), and the outcome is recorded with
 *                 compare-and-set on the state, the lease owner and its generation;
 *       mark      the kubelets' skip (state.MarkKubelet): a host whose version is already the
 *                 hop's is recorded done with no command, compare-and-set on the state and hop;
 *       next-hop  compare-and-set on the state and the hop read, writes hop := the hop read + 1,
 *                 only while hops are left and no live lease is held;
 *       complete  only when the view is at the last hop (state.CheckComplete), or from its failed
 *                 twin: compare-and-set on the state, no live lease held, takes the lease
 *                 (gen++) into COMPLETING (upgrade-completing), asks the API server (no command
 *                 on the host), then records COMPLETE or its failed twin CFAILED
 *                 (upgrade-completing-failed) with compare-and-set on the state, owner and
 *                 generation; the audit and a forced fail fail COMPLETING as any in-flight state.
 *   - The host's version (hv: 0 the starting one, h+1 once a command of hop h succeeded). A
 *     command is a process of its own: it ends by itself, succeeds or fails, and releases the fence.
 *   - Crash and expiry as in lease.pml: a SIGKILL of one runner at any moment (an `unless`
 *     escape), leases that expire at any moment, the watch audit failing an in-flight state whose
 *     lease expired, one `upgrade failed --force` with the lease live or not.
 *
 * What is abstracted, and why that is sound
 *   - What lease.pml proves is taken as given here and not modelled again: database outages (they
 *     only disable steps), renewals (a runner that never renews has the most stale view; a renewal
 *     only makes an expired lease live again, which enables nothing), the audit's own read before
 *     its compare-and-set (it compares the generation, so it acts as one atomic step), several
 *     kubeadm at once (one command holds the fence at a time: one Host process ends it).
 *   - The steps of a hop are one step on one host: the state of every step recurs at every hop,
 *     which is what makes a stale view dangerous, and the retry of a step runs on the host of the
 *     step that failed. A step is recorded done only after its own command succeeded, or by the
 *     mark when the host already runs the hop's version.
 *   - Numbers: NH hops, NR runners, MAXGEN starts in all (each start is a generation), one host.
 *
 * Properties
 *   H1  every hop change is h -> h+1: the hop never goes back, never skips, never stands still
 *       on a next-hop (assert where next-hop writes).
 *   H2  a step of hop h never starts, and is never marked done, once the upgrade is at another
 *       hop: a stale runner is refused (assert where start and mark write).
 *   H3  commands on the host never go back a hop: a command of hop h never starts after a
 *       command of a later hop started there (assert where the fence lets a command in).
 *   H4  the run completes only at the last hop, with the host at the last hop's version, and only
 *       by the owner of the completing operation's lease, that generation's (assert where
 *       complete writes).
 *   I   in flight (a step's or completing) <=> a lease row, whose generation is the cluster's.
 *
 * Broken variants, each must fail: -DNONEXTHOP (next-hop compares the state only: H1),
 * -DNOSTARTHOP (a step's start compares the state only: H2), -DNOMARKHOP (the mark compares the
 * state only: H2), -DNOLAST (complete from any hop's view: H4), -DNOSTAMP (the fence without its
 * generation stamp: H3). -DREACH asserts that no run completes, and must fail too: the model
 * reaches the end of the last hop.
 */

#define NR     2 /* runners */
#define NH     2 /* hops */
#define LAST   (NH - 1)
#define MAXGEN 3 /* starts in all */

mtype = { STARTED, INFLIGHT, FAILED, DONE, COMPLETING, CFAILED, COMPLETE };

/* The database. */
mtype st = STARTED;
byte  hop = 0;
byte  gen = 0;
byte  lowner = 0;     /* lease owner: 0 none, else runner id + 1 */
byte  lgen = 0;
bool  llive = false;

/* The host: its fence, the command holding it, and its version. */
bool fheld = false;
byte fstamp = 0;      /* highest generation the fence has seen */
byte krun = 0;        /* runner id + 1 of the command running, 0 none */
byte khop = 0;        /* the hop whose version that command installs */
byte hv = 0;          /* 0 the starting version, h + 1 once a command of hop h succeeded */
bool kdone[NR];       /* runner i's last command has ended */
bool kok[NR];         /* ... and succeeded */
bool killed[NR];

byte maxkhop = 0;     /* ghost: highest hop whose command started on the host */

#define INV ((st == INFLIGHT || st == COMPLETING) == (lowner != 0) && (lowner == 0 || lgen == gen))
#define NOLIVE (lowner == 0 || !llive)

#ifdef NOSTARTHOP
#define STARTHOP true
#else
#define STARTHOP (hop == rh)
#endif
#ifdef NOMARKHOP
#define MARKHOP true
#else
#define MARKHOP (hop == rh)
#endif
#ifdef NONEXTHOP
#define NEXTHOP true
#else
#define NEXTHOP (hop == rh)
#endif

/* release ends the operation in flight: its outcome written, its lease gone. */
inline release(to) {
	st = to; lowner = 0; lgen = 0; llive = false;
	assert(INV)
}

/* command is one command of runner me for hop rh: through the fence, then wait for its end. */
inline command() {
	do
	:: atomic {
#ifdef NOSTAMP
		!fheld -> fheld = true;
#else
		!fheld && g >= fstamp -> fheld = true; fstamp = g;
#endif
		assert(rh >= maxkhop);  /* H3 */
		maxkhop = rh; krun = me + 1; khop = rh; kdone[me] = false; kok[me] = false; ran = true
	   };
	   kdone[me];
	   break
	:: break  /* the fence refused (a later generation ran), or the gate held it: nothing runs */
	od
}

/* record writes the outcome with compare-and-set on the state, owner and generation. */
inline record() {
	atomic {
		if
		:: st == INFLIGHT && lowner == me + 1 && lgen == g ->
			if
			:: ran && kok[me] -> release(DONE)
			:: release(FAILED)
			fi
		:: else -> skip  /* failed meanwhile: an evidence event only */
		fi
	}
}

/* step starts the step of hop rh from state rs: start, or mark when the host is at the hop. */
inline step() {
	if
	:: atomic {
		(st == rs) && STARTHOP && NOLIVE && gen < MAXGEN ->
		gen++; g = gen; st = INFLIGHT; lowner = me + 1; lgen = g; llive = true;
		assert(rh == hop);  /* H2 */
		assert(INV)
	   };
	   command();
	   if
	   :: record()
	   :: skip  /* gives up on the database: the audit fails it */
	   fi
	:: atomic {
		rv == rh + 1 && st == rs && MARKHOP && NOLIVE ->
		assert(rv == hop + 1);  /* H2: the host runs the version of the hop it is marked in */
		st = DONE
	   }
	:: else -> skip  /* refused: the state or hop moved on, or no start is left */
	fi
}

/* complete starts completing from state rs (the view), then records what the API server said. */
inline complete() {
	if
	:: atomic {
		st == rs && NOLIVE && gen < MAXGEN ->
		gen++; g = gen; st = COMPLETING; lowner = me + 1; lgen = g; llive = true;
		assert(INV)
	   };
	   atomic {
		if
		:: st == COMPLETING && lowner == me + 1 && lgen == g ->
			if
			:: assert(hop == LAST && hv == NH);  /* H4 */
#ifdef REACH
			   assert(false);
#endif
			   release(COMPLETE)
			:: release(CFAILED)  /* the cluster did not report it in time */
			fi
		:: else -> skip  /* failed meanwhile by the audit or by force */
		fi
	   }
	:: else -> skip
	fi
}

proctype Runner(byte me) {
	mtype rs;
	byte rh, rv, g;
	bool ran;
	{
end:		do
		:: atomic { rs = st; rh = hop; rv = hv };  /* the view */
		   if
		   :: rs == STARTED || rs == FAILED -> step()
		   :: rs == DONE && rh < LAST ->
			atomic {
				if
				:: st == rs && NEXTHOP && NOLIVE && rh < LAST ->
					assert(hop == rh);  /* H1 */
					hop = rh + 1; st = STARTED
				:: else -> skip
				fi
			}
#ifdef NOLAST
		   :: rs == DONE || rs == CFAILED ->
#else
		   :: (rs == DONE && rh == LAST) || rs == CFAILED ->
#endif
			complete()
		   :: rs == COMPLETE || rs == INFLIGHT || rs == COMPLETING -> break  /* done, or another's operation runs */
		   fi;
		   rs = 0; rh = 0; rv = 0; g = 0; ran = false  /* forget the last attempt (fewer states) */
		od
	} unless { atomic { killed[me] -> rs = 0; rh = 0; rv = 0; g = 0; ran = false } }
}

/* Host ends the command holding the fence: it succeeds (the host at its hop's version) or fails. */
active proctype Host() {
end:	do
	:: atomic {
		fheld ->
		if
		:: hv = khop + 1; kok[krun - 1] = true
		:: skip
		fi;
		kdone[krun - 1] = true; fheld = false; krun = 0; khop = 0
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

/* Watch is the audit (and `kupgrade recover`): an in-flight state whose lease expired fails. */
active proctype Watch() {
end:	do
	:: atomic { st == INFLIGHT && lowner != 0 && !llive -> release(FAILED) }
	:: atomic { st == COMPLETING && lowner != 0 && !llive -> release(CFAILED) }
	od
}

/* Force is the operator's `upgrade failed --force`, once: live lease or not. */
active proctype Force() {
	if
	:: atomic { st == INFLIGHT -> release(FAILED) }
	:: atomic { st == COMPLETING -> release(CFAILED) }
	:: skip
	fi
}

active proctype Clock() {
end:	do
	:: atomic { lowner != 0 && llive -> llive = false }
	od
}

init {
	atomic { run Runner(0); run Runner(1) }
}
