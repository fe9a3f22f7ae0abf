// Package health holds the checks an operator runs before a maintenance window: what in the
// cluster would make an upgrade to a target version fail or hurt. Each check is one line with
// pass, warn or fail and the objects it names (nodes, pods, certificates, APIs, budgets), and
// each can be skipped by its name, which the caller records.
//
// The checks read what a controller reports: kubectl with /etc/kubernetes/admin.conf (nodes,
// pods, budgets, the API server's metrics and kubeadm's ClusterConfiguration), openssl on the
// certificates kubeadm manages, and etcdctl where a controller has it. The packages check asks
// every host's package manager (apt, dnf or yum) which kubeadm, kubelet and kubectl are installed
// and held and whether the repository of each hop's minor offers the hop's version, from a
// temporary copy of the host's source that leaves its sources, lists and caches alone. The
// package builds the scripts that gather it (ClusterScript, HostScript, EtcdScript,
// OfferedScript, InstalledScript) and judges their output with pure functions (Judge,
// ParseInstalled); it is handed an Exec and runs nothing itself, knowing no host, connection or
// store. The same etcdctl finding serves the etcd snapshot an upgrade takes before its control
// plane moves (EtcdSnapshotScript, read back by ReadSnapshot).
package health
