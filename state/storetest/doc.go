// Package storetest is the one conformance suite every state.Store passes: state/sqlite in its
// unit tests, state/mysql against a real MariaDB in integration/. It checks the behaviour that
// docs/states.md promises and the audit and the CLI rely on: compare-and-set transitions that write
// nothing when they lose, leases, the in-flight listing, UTC times whatever the process's or
// the session's zone, an operator's SQL hand edit, and races between goroutines and between
// separate Store instances on one database.
//
// The suite changes time.Local in some tests, so it must not run in parallel with other tests
// of the same binary that read the local zone.
package storetest
