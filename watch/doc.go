// Package watch is `kupgrade watch`: the loop that runs recovery's audit (recovery.Audit) every
// interval while it holds the store's single-auditor lock (state.Store.AuditLock), the status
// page and its /status.json, and the Prometheus metrics.
//
// A Watcher runs one audit at a time across processes; when it loses the lock (its lease not
// renewed in time) it stops auditing, says so, and takes the lock again before it audits again.
// The status page and the metrics read the clusters' states, leases and fleets from the store
// when asked, never only from the last pass, so a watcher waiting for the audit lock reports them
// as well. The page names, for each cluster that needs a person, the command that goes on with
// it (recovery.Next, completed by recovery.Where).
//
// watch depends on recovery and state; recovery never imports watch.
package watch
