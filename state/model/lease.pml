/*
 * lease.pml: kupgrade's lease protocol (docs/states.md "Failing an operation: one path" and "Stuck
 * detection: leases first, age second") as a Promela model for Spin. `go test ./state/model`
 * checks it; model_test.go has the exact commands.
 *
 * What is modelled
 *   - One cluster row: st in {IDLE, INFLIGHT, FAILED, DONE}, the generation gen (a fencing token,
 *     incremented by every acquire), and the lease row (owner, generation, live or expired).
 *     IDLE stands for "idle or settled": a state a runner may start from, like FAILED.
 *   - The database can be down (up == false); an outage ends. Every
 *     database step (acquire, renew, record, fail) is one atomic compare-and-set and happens only
 *     while the database is up; a step tried while it is down is a step that did not happen.
 *   - Two runners: the first one and a retry (or a second process started by mistake). Each one
 *     acquires (IDLE/FAILED -> INFLIGHT, gen++), takes the host fence and starts kubeadm in one
 *     command on the host, waits for it, then records the outcome with compare-and-set on the state
 *     AND its own lease and generation. When the compare fails it writes an evidence event only.
 *   - The host fence: a lock held for the life of each kubeadm command and stamped with the lease's
 *     generation; it refuses a generation lower than the highest stamp it has seen. A busy lock
 *     makes the runner wait. Taking the lock, checking the stamp and starting kubeadm are one
 *     command on the host, so a runner killed before it is not left holding the lock.
 *   - kubeadm is a process of its own: it ends by itself and releases the fence when it ends,
 *     whatever happened to its runner. Nothing in the model stops it because of the database (P2):
 *     a lost lease or an outage only stops the runner from starting new work.
 *   - The watch audit (and `kupgrade recover`, which runs the same transaction) reads the state
 *     and generation, then fails the operation with compare-and-set on both and on the lease being
 *     expired, releasing it. The operator's `upgrade failed --force` does the same once, live
 *     lease or not.
 *
 * What is abstracted, and why that is sound
 *   - Time. A lease not renewed may expire at any moment (the Clock process); a renewal makes it
 *     live again until the next expiry. This over-approximates every TTL and every pause (GC,
 *     SIGSTOP, a slow network): a runner can always be slower than its lease, which is exactly why
 *     the host fence exists. Expiry is judged on one clock, the database's, inside the transaction
 *     that reads it (P3): there is no second clock in the model, so clock skew between processes
 *     cannot matter. -DLOCALCLOCK gives the watch a clock of its own (ahead by any amount) to show
 *     what P3 buys.
 *   - Renewal compares owner and generation only, like RenewLease: it may revive an expired lease
 *     that nobody has failed yet. That race is harmless because the audit judges expiry inside
 *     its own compare-and-set (the model explores it).
 *   - SQL and SSH. A transaction is one atomic step; an SSH command is a step on the host that
 *     needs no database. A reply lost after a commit is a runner that gives up after its step
 *     succeeded, which its choices below cover.
 *   - Outages. A down database only disables steps, and the interleavings already hold every
 *     stretch without database steps, so for safety the outage adds nothing; it is there for L1,
 *     whose fairness it must not defeat. One outage (MAXOUT), at any moment, ending.
 *   - Kill. SIGKILL of a runner at any point is an `unless` escape: the runner takes no further
 *     step; its kubeadm, if started, runs on and releases the fence when it ends. The Kill
 *     process kills one runner or none; what others see of the other runner dying is already
 *     there, because a runner may give up at each of its waits (for the fence, for the database).
 *     A runner that is merely slow is any interleaving. A crashed database is an outage.
 *   - Numbers. Two runners with one attempt each, one host, generations 0..2, MAXREN renewals
 *     per runner. What the model leaves out: three or more concurrent runners or generations
 *     (argued, not checked: the fence and the compare-and-set always compare one generation with
 *     one other), several hosts and host statuses (the kubelet batch), and the audit's age path
 *     for a state with no lease row, which this protocol never leaves (invariant I).
 *   - Renewals are bounded so that a runner cannot renew forever while its kubeadm has ended:
 *     in the real protocol kubeadm runs a finite time, so there are finitely many renewals.
 *
 * Properties
 *   S1  never two kubeadm running on the host at once (assert where a runner starts kubeadm).
 *   S2  an outcome is written only over an in-flight state, only for the current generation, and
 *       once per generation: nobody overwrites another's outcome (assert in outcome).
 *   S3  a kubeadm never starts after a kubeadm of a later generation started (the fence stamp).
 *   S4  the audit never fails a lease the database holds live (a live lease is slow, not stuck).
 *   I   in flight <=> a lease row, whose generation is the cluster's (assert(INV) after each write).
 *   L1  every in-flight state eventually ends FAILED or DONE, under weak fairness, given outages
 *       end and the watch keeps running (ltl l1).
 *
 * Broken variants, each must fail: -DNOFENCE (S1), -DNOSTAMP (S3), -DNOCAS (S2),
 * -DLOCALCLOCK (S4), -DNOWATCH (L1).
 */

#define NR     2 /* runners */
#define MAXOUT 1 /* database outages */
#define MAXREN 1 /* renewals per runner */

mtype = { IDLE, INFLIGHT, FAILED, DONE };

/* The database. */
bool  up = true;
mtype st = IDLE;
byte  gen = 0;        /* the cluster's generation: the fencing token */
byte  lowner = 0;     /* lease owner: 0 none, else runner id + 1 */
byte  lgen = 0;       /* the lease's generation */
bool  llive = false;  /* judged on the database's clock */

/* The host fence. */
bool fheld = false;
byte fstamp = 0;      /* highest generation the fence has seen */

bool kstart[NR];      /* runner i's kubeadm was started */
bool kdone[NR];       /* ... and has ended */
bool killed[NR];

/* Ghosts: only assertions read them. */
byte nk = 0;          /* kubeadm commands running now */
byte maxk = 0;        /* highest generation whose kubeadm started */
bool nout[NR + 1];    /* generation g's outcome was written */

#ifdef LOCALCLOCK
#define EXPIRED (lowner != 0)            /* the watch's own clock may be ahead by any amount */
#else
#define EXPIRED (lowner != 0 && !llive)  /* the database's clock, in the same transaction */
#endif

/* I: in flight exactly when a lease row exists, and the lease's generation is the cluster's. */
#define INV ((st == INFLIGHT) == (lowner != 0) && (lowner == 0 || lgen == gen))

/* outcome writes g's outcome and releases the lease: the end of every in-flight operation. */
inline outcome(g, to) {
	assert(st == INFLIGHT);  /* S2: never over a recorded outcome */
	assert(g == gen);        /* S2: only the current generation's outcome */
	assert(!nout[g]);        /* S2: one outcome per generation */
	nout[g] = true;
	st = to; lowner = 0; lgen = 0; llive = false;
	assert(INV)
}

/* renew is one heartbeat: compare-and-set on the owner and generation. */
inline renew() {
	atomic {
		up && ren < MAXREN ->
		ren++;
		if
		:: lowner == me + 1 && lgen == g -> llive = true
		:: else -> lost = true  /* failed or taken over: start no new work */
		fi
	}
}

proctype Kubeadm(byte me) {
end:	kstart[me];
	/* runs, outliving its runner if need be; nothing here looks at the database (P2) */
	atomic {
		nk--; kdone[me] = true;
#ifndef NOFENCE
		fheld = false
#endif
	}
}

proctype Runner(byte me) {
	byte g = 0, ren = 0;
	bool lost = false;
	{
		atomic {
			up;
			if
			:: (st == IDLE || st == FAILED) && (lowner == 0 || !llive) ->
				gen++; g = gen; st = INFLIGHT; lowner = me + 1; lgen = g; llive = true;
				assert(INV)
			:: else -> goto leave  /* in flight elsewhere, or done: refused */
			fi
		}
		do
		:: atomic {
#ifdef NOFENCE
			!lost ->
#elif defined(NOSTAMP)
			!lost && !fheld -> fheld = true;
#else
			!lost && !fheld && g >= fstamp -> fheld = true; fstamp = g;
#endif
			nk++;
			assert(nk <= 1);    /* S1 */
			assert(g >= maxk);  /* S3 */
			maxk = g;
			kstart[me] = true
		   };
		   break
		:: goto record  /* the fence refused (a later generation ran), the lease was lost,
		                 * or no renewal succeeded within the deadline: start nothing */
		:: renew()
		od;
		do
		:: kdone[me] -> break
		:: renew()
		od;
record:
		do
		:: atomic {
			up ->
			if
#ifdef NOCAS
			:: st == INFLIGHT ->
#else
			:: st == INFLIGHT && lowner == me + 1 && lgen == g ->
#endif
				if
				:: outcome(g, DONE)
				:: outcome(g, FAILED)
				fi
			:: else -> skip  /* another's outcome, or failed meanwhile: an evidence event only */
			fi
		   };
		   break
		:: break  /* gives up waiting for the database: the audit will fail it */
		od;
leave:		g = 0; ren = 0; lost = false  /* dead from here: forget them (fewer states) */
	} unless { atomic { killed[me] -> g = 0; ren = 0; lost = false } }
}

/* Kill sends SIGKILL to one runner, at any moment, or to none. */
active proctype Kill() {
	if
	:: killed[0] = true
	:: killed[1] = true
	:: skip
	fi
}

/* Watch is the audit (and `kupgrade recover`): read, then compare-and-set. */
active proctype Watch() {
	byte rg;
	skip;  /* a proctype needs a statement, even under NOWATCH */
#ifndef NOWATCH
end:	do
	:: atomic { up && st == INFLIGHT && EXPIRED -> rg = gen };
	   atomic {
		if
		:: up && st == INFLIGHT && gen == rg && EXPIRED ->
			assert(!llive);  /* S4 */
			outcome(rg, FAILED)
		:: else -> skip  /* moved on, or the database is down: nothing written */
		fi;
		rg = 0
	   }
	od
#endif
}

/* Force is the operator's `upgrade failed --force`, once: live lease or not. */
active proctype Force() {
	byte rg;
	if
	:: atomic { up && st == INFLIGHT -> rg = gen };
	   atomic {
		if
		:: up && st == INFLIGHT && gen == rg -> outcome(rg, FAILED)
		:: else -> skip
		fi;
		rg = 0
	   }
	:: skip
	fi
}

active proctype Clock() {
end:	do
	:: atomic { lowner != 0 && llive -> llive = false }
	od
}

active proctype Database() {
	byte n = 0;
end:	do
	:: atomic { up && n < MAXOUT -> up = false; n++ }
	:: atomic { !up -> up = true }
	od
}

init {
	atomic {
		run Kubeadm(0); run Kubeadm(1);
		run Runner(0); run Runner(1)
	}
}

ltl l1 { [] ((st == INFLIGHT) -> <> (st == FAILED || st == DONE)) }
