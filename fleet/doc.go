// Package fleet upgrades many clusters, one inventory each, from one or several `kupgrade fleet
// run` processes that share the work through the database alone.
//
// Guarantees:
//   - Each cluster is carried forward by the upgrade package's own workflow (Workflow.Resume:
//     `upgrade run` from any state, failed ones included); this package adds no step of its own.
//   - A runner works on a cluster only while it holds the cluster's claim (state.FleetStore): a
//     lease row taken with compare-and-set, renewed by upgrade.Keep, judged on the database's
//     clock. A claim lost to another runner stops the cluster's run before its next step; the
//     operation in flight goes on under its own lease and host fence, as for any `upgrade run`.
//   - A runner that dies leaves claims that expire within one TTL; the others poll for expired
//     claims every tenth of a TTL and take them over, failing through `recover` the operation the
//     dead runner left in flight before they resume.
//   - No query walks the whole fleet for a step: claims walk the index of pending clusters past
//     the live claims only; the whole fleet is read by `fleet show`, the status page and the
//     metrics, once per request.
//
// Overviews summarizes the fleets from their rows (state.FleetRow) for `fleet show`, the status
// page and the metrics: clusters per state and outcome, the live claims, the clusters failing or
// stuck with the command that goes on with each (recovery.Next), and an estimate of the time left.
package fleet
