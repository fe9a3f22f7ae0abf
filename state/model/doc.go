// Package model holds lease.pml, a Promela model of kupgrade's lease protocol (docs/states.md "Failing
// an operation: one path" and "Stuck detection: leases first, age second"), and the test that has
// the Spin model checker prove it. It has no Go code to import: the model is the product.
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
// The test needs spin and gcc (`make deps` installs them); KUPGRADE_NO_SPIN=1 skips it.
package model
