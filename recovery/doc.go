// Package recovery is the one path that fails an in-flight upgrade operation (STATES.md, "Failing
// an operation: one path"). The runner after a failed step, `kupgrade upgrade failed`,
// `kupgrade recover` and the `kupgrade watch` audit all call Fail; nothing else writes a
// `*-failed` state.
//
// Guarantees: Fail moves the cluster state to its failed twin (state.FailedTwin), clears the
// in-flight status of the host being worked on so the retry's pre-check passes, releases the
// lease and writes one event with the evidence, all in one compare-and-set transaction. When the
// state moved underneath, nothing is written and the error wraps state.ErrConflict. Failing a
// state that is already failed (with no host left in flight) is a no-op that succeeds.
package recovery
