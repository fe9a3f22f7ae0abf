// Package kubeadm is kupgrade's knowledge of kubeadm: what `kubeadm upgrade apply` and `kubeadm
// upgrade node` leave on a host's disk (static-pod manifests in /etc/kubernetes/manifests, the
// kubeadm-upgraded-manifests*, kubeadm-backup-manifests-<time> and kubeadm-kubelet-config*
// folders under /etc/kubernetes/tmp, /var/lib/kubelet/config.yaml), how to read it, and how to
// judge how far an interrupted upgrade got (docs/kubeadm.md, docs/states.md "The kubelet-config check").
//
// What it knows:
//   - the probe: the shell script that looks at those paths (Prober.Command) and the parser of
//     its report (ParseReport) into a Snapshot; Prober.Probe runs both through an Exec;
//   - the classification: Classify compares the snapshots from before and after a step and
//     returns a Finding (class, one sentence, the operator's next step);
//   - the playbook module kubelet_config, a modules.Module like the built-in ones, which
//     registers a snapshot and a finding; Modules is the registry of the built-ins and it;
//   - how to read versions: the control-plane version is the lowest image tag of the
//     kube-apiserver, controller-manager and scheduler manifests (compared with state.Version,
//     kupgrade's one comparison of versions), the kubelet's is what `kubelet --version` prints;
//   - which line of a failed command's output says why (FailureLine);
//   - whether another kupgrade command still runs on the host: the probe reads the runner's host
//     fence (/var/lib/kupgrade/fence.lock, tested without being kept, and its stamp) into
//     Snapshot.Fence, and Classify then says to wait for that command first. The paths and the
//     stamp's form are internal/fencefile's, which the runner writes with.
//
// What it must not know: hosts, connections, SSH, sudo, playbooks or the runner (it is handed an
// Exec, by its module's modules.Task or by a caller, and runs nothing itself), the store, leases
// or states beyond state.Version. It imports nothing of kupgrade but state, modules (the
// module interface and the built-ins' registry) and internal/fencefile, so recovery, upgrade and
// the runner's callers can all depend on it.
//
// Guarantees: the JSON field names of Snapshot and Finding, the classes, the sentences and the
// keys the module registers are stored in events and read by people and playbooks; they change
// only on purpose, and the golden files under testdata/golden (one per row of docs/kubeadm.md "What a
// failure leaves behind", built from files a real kubeadm writes) show every change. Refresh them
// with `go test ./kubeadm -update`.
package kubeadm
