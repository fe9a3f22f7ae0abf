// Package model holds lease.pml, a Promela model of kupgrade's lease protocol (docs/states.md "Failing
// an operation: one path" and "Stuck detection: leases first, age second"), hops.pml and
// phases.pml on top of it, and the test that has the Spin model checker prove them. It has no Go
// code to import: the models are the product.
//
// What the model checks, over every interleaving of two runners, their kubeadm commands, the
// watch audit, an operator's `upgrade failed --force`, a SIGKILL, database outages and lease
// expiry at any moment:
//   - S1: never two kubeadm commands on the host at once (the host fence);
//   - S2: nobody overwrites another's outcome (compare-and-set on state, owner and generation);
//   - S3: a kubeadm of an older generation never starts after a newer one (the fence's stamp);
//   - S4: the audit never fails a lease the database holds live (one clock, the database's);
//   - L1: under weak fairness, every in-flight state ends failed or done, given outages end and
//     the watch runs.
//
// Each property has a broken variant (a -D flag to spin) that must fail, so that none of them holds
// only because the model cannot reach the case. lease.pml's header says what is abstracted (time,
// SQL, SSH, the number of processes, what a kill is) and why that is sound.
//
// hops.pml models an upgrade across several minors on top of that protocol (docs/states.md
// "Several minors: hops"): two runners walk two hops with views that may be stale, next-hop and
// each step's start compare the hop, and kills, expiring leases, the audit and a forced fail come
// at any moment. It checks that every hop change is h -> h+1 (H1), that a stale runner's step of
// an older hop is refused at its start or its mark (H2), that commands on the host never go back
// a hop (H3), and that the run completes only at the last hop with the host at its version (H4),
// complete being an operation in flight of its own (upgrade-completing, under the lease, failed
// by the audit like any other, retried from its failed twin);
// its broken variants (-DNONEXTHOP, -DNOSTARTHOP, -DNOMARKHOP, -DNOLAST, -DNOSTAMP) must fail.
//
// phases.pml models one host's kubelet step in its phases (docs/states.md "Host statuses"):
// draining-node -> upgrading-kubelet -> uncordoning-node -> upgraded-kubelet, with the failed
// twins draining-node-failed, idle and uncordoning-node-failed, under the lease. Two runners (one
// may be an operator's -f) walk it with kills at any moment, commands that land after part of
// their effect or after their runner died, expiring leases and the audit; the node's cordon,
// kupgrade's mark on it, its kubelet binary and its running kubelet change only through the
// commands of each phase, and the skip marks a host upgraded only when the API server reports
// its node settled. It checks that a host recorded upgraded-kubelet is never left cordoned or
// marked by kupgrade (P1) and runs the target kubelet, restarted (P2), that the retry of a failed
// uncordon never drains again (P3), and, under weak fairness, that every in-flight phase ends
// upgraded-kubelet or in its failed twin (P4). Its broken variants must fail: -DSKIPBINARY (the
// skip on the binary alone, the kill campaign's bug), -DRETRYDRAINS, -DNOSTAMP, -DNOMARKGEN (the
// mark without the generation compare), -DUNMARKFIRST (the mark taken off before the uncordon),
// -DOLDAUDIT (the audit knowing upgrading-kubelet only).
//
// The test needs spin and gcc (`make deps` installs them); KUPGRADE_NO_SPIN=1 skips it.
package model
