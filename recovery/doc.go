// Package recovery is the one path that fails an in-flight upgrade operation (docs/states.md, "Failing
// an operation: one path"), and the two ways of finding operations nobody runs any more:
// `kupgrade recover` (Recover) and the audit `kupgrade watch` runs (Audit; the loop, its status
// page and metrics are package watch).
//
// Fail moves the cluster state to its failed twin (state.FailedTwin), clears the in-flight status
// of the host being worked on so the retry's pre-check passes, releases the lease and writes one
// event with the evidence, all in one compare-and-set transaction. When the state moved
// underneath, nothing is written and the error wraps state.ErrConflict. Failing a state that is
// already failed (with no host left in flight) is a no-op that succeeds. The runner after a failed
// step, `upgrade failed`, Recover and Audit all call Fail; nothing else writes a `*-failed` state.
//
// Recover and Audit judge an operation stuck by its lease first (expired: the owner died) and by
// age second (no lease at all: older than --stale-after, measured from state_entered_at, or for a
// host left in flight in a long-lived or settled state from that host's own row). A live lease is
// never touched without --force. A cluster whose rows cannot be read (state.BadRow) is reported
// and skipped by the audit, never the end of a pass; Fail still fails it with --force, except
// a state that is not a state, which only a person can correct. Before failing they probe the host that was worked on
// and compare it with the snapshot the runner recorded before kubeadm ran, so the evidence says
// how far kubeadm got; an unreachable host is reported, never fatal. Audit passes every write
// through Fail with the state it read, so a runner finishing at the same moment wins.
//
// recovery depends on state and kubeadm only: it reaches hosts through the Prober it is handed,
// never through the runner.
package recovery
