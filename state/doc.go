// Package state is kupgrade's model of a Kubernetes upgrade: the cluster states and host statuses
// of StarlingX's sysinv (tables kube_upgrade and kube_host_upgrade), the one map from an in-flight
// state to its failed twin, the transition rules, and the Store that persists them.
//
// Guarantees:
//   - Every state string, every in-flight state and its failed twin is defined once, here. Every
//     path that fails an operation (runner, `upgrade failed`, `recover`, `watch`) uses FailedTwin.
//   - Every step is one row of the step table (steps.go): its transitions, where it runs, its
//     shipped playbook, and the command and StarlingX alias that run it. The workflow, `upgrade
//     run`, the refusals, the retry hints and the CLI grammar look steps up there. The tables
//     are handed out as copies (Steps, AllStates, DeletableStates): no importer can change them.
//   - A Change (one transition) is built only by the constructors of transition.go, one per legal
//     kind (start, finish, fail, take over, complete, ...), checked against the step table; the
//     store refuses a Change they did not build, or one they found illegal, with ErrBadInput.
//   - Every write is one transaction with compare-and-set on the state (and host status, and lease)
//     that the caller read. When the compare fails, nothing is written and ErrConflict is returned.
//   - Times are UTC end to end and stored as "YYYY-MM-DD HH:MM:SS.ffffff", so an operator's SQL hand
//     edit (datetime('now', '-2 hours'), UTC_TIMESTAMP() - INTERVAL 2 HOUR) is understood.
//
// The package imports nothing else of kupgrade but the leaves internal/fault, whose error
// classes its own are, and internal/typo (the "did you mean" of UnknownState). Implementations live in state/sqlite and
// state/mysql; state/storetest is the conformance suite both pass.
package state
