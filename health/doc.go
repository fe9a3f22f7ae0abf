// Package health holds the checks an operator runs before a maintenance window: what in the
// cluster would make an upgrade to a target version fail or hurt. Each check is one line with
// pass, warn or fail and the objects it names (nodes, pods, certificates, APIs, budgets), and
// each can be skipped by its name, which the caller records.
//
// The checks read what a controller reports: kubectl with /etc/kubernetes/admin.conf (nodes,
// pods, budgets, the API server's metrics and kubeadm's ClusterConfiguration), openssl on the
// certificates kubeadm manages, and etcdctl where a controller has it. The package builds the
// script that gathers it (Script) and judges the output with pure functions (Judge); it is
// handed an Exec and runs nothing itself, knowing no host, connection or store.
package health
