// Package upgrade is the kube-upgrade workflow: for each step of docs/states.md it runs the pre-checks,
// moves the state and takes the lease in one transaction, runs the step's playbook on the hosts
// through the runner while a goroutine renews the lease, verifies the result on the hosts and
// records the outcome. What a step is (its states, scope, playbook and command) comes from
// state's step table; the upgrade's notion of now is the store's clock.
//
// Guarantees: every failure of a step (non-zero exit, timeout, dropped connection, a verification
// that does not hold, a lost lease, Ctrl-C or SIGTERM) ends in the failed twin of the step's state
// through recovery.Fail, with the host probed again after the failure (reconnecting when the
// connection dropped) and the finding stored as evidence. The record is written under a short
// detached context, so it survives the cancellation that caused it. A SIGKILL leaves the lease to
// expire; `kupgrade recover` or `kupgrade watch` then fails the operation. Every root command of
// a step's playbook runs under the host's fence (runner.Fence), keyed by the upgrade's id and
// stamped with the generation of the step's lease and the cluster: one kubeadm per host, even
// when a kupgrade that lost its lease still has one running there, and no command of another
// cluster's upgrade, nor of another upgrade of this cluster that another database records (one
// cluster, one upgrade: the stamp names the cluster's kube-system UID and the database), on a
// host within a lease's TTL of this upgrade's last command there.
//
// One way to run a step: an Action names a step of state's step table and its hosts; Do hands it
// to the one executor of the step's scope (action.go: clusterExec for the controllers and the
// one-host steps, controlPlaneExec, kubeletExec, storeExec). `upgrade run` (Run), the
// single-step commands, the fleet (through Resume) and the plan (Preview, `run --dry-run`) all
// go through it: the plan asks the same executor which hosts an action runs on (where), what its
// pre-checks say (check) and what the store records when it succeeds (after), so the preview
// and the run cannot disagree.
//
// Adding a step (a drain, a package install, an etcd snapshot):
//  1. add it to the step table (state/steps.go): its states, scope, playbook and command, and
//     its states to state/state.go with their failed twin;
//  2. ship its playbook (playbooks/) or let the inventory name one (kupgrade_playbooks);
//  3. say where Plan.Next (plan.go) runs it in the order;
//  4. only when none of the four scopes fits, give its scope an executor of its own and put
//     it in executors (action.go).
//
// The etcd snapshot (snapshot.go): the first controller's control-plane step of hop 0 (and of a
// later hop when etcd is stacked) first saves an etcd snapshot under the step's fence and lease
// (the etcd-snapshot playbook, with health's etcdctl), copies it to SnapshotOptions.Dir checked
// against the controller's sha256, and records it (state.EtcdSnapshot) with its event; a
// failure there is the step's failed twin, and kubeadm does not run. Abort (abort_etcd.go)
// puts etcd back from that snapshot only when asked (RestoreEtcd); where it would have to (etcd
// moved a minor, or an earlier attempt left the manifests aside) a plain abort refuses, naming
// the snapshot's time and revision, etcd's revision now and etcd's own downgrade where it keeps
// the data (abort_etcd_guard.go); a snapshot past MaxSnapshotAge is refused unless
// ForceOldSnapshot. Asked, it reads every member first (etcd_restore.go) and
// refuses, before writing anything, with what is missing and the manual commands; else the
// restore's phases (etcd_restore_run.go: stop, restore, start, the etcd-restore playbook) run
// inside the abort operation, and a member whose data dir carries the restore's mark is not
// restored twice.
//
// upgrade is where the runner and kubeadm meet: the runner runs kubeadm's probe on a host
// (ProbeHost, over the step's connection), kubeadm reads its report and judges how far kubeadm
// got (kubeadm.Classify); the playbooks' kubelet_config module is kubeadm's, plugged into the
// runner by cmd.
package upgrade
