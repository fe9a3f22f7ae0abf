// Package sim is a simulated fleet: many small kubeadm clusters served by one in-process
// SSH listener, for tests and benchmarks of `kupgrade fleet run` at a scale real sshd containers
// cannot reach on a small machine.
//
// Every host is a virtual host of one listener on 127.0.0.1, told apart by the SSH login name
// (CLUSTER.HOST). Its disk is a small in-memory tree; the commands kupgrade sends (the agent's
// requests, the runner's wrappers, sudo, the host fence, the probe script) run unchanged in a
// POSIX shell interpreter (mvdan.cc/sh), whose external commands are simulated in Go: kubeadm
// writes what the lab's simulated kubeadm writes (integration/lab/image/rootfs/usr/bin/kubeadm:
// manifests from the same templates, backups under /etc/kubernetes/tmp, /var/lib/kubelet/
// config.yaml, the cluster version shared by the cluster's nodes), and the kubelet, the lab's
// kupgrade-lab-kubelet, flock and the few coreutils the scripts use behave as on a node. A host
// costs memory only while idle: no goroutine, no file, no process.
//
// A host counts the kubeadm commands that ever ran on it at once (one per host is what kupgrade
// promises). Its kubeadm runs the lab kubeadm's phases (config, preflight, control-plane,
// kubelet-config, addon, post-upgrade) and fires the lab's faults between them: a Fault armed
// with InjectFault (the lab's fault file, on the host's disk) exits, hangs until the session
// ends, drops the SSH connection, or waits, before or after a named phase, once or always. A
// cluster can be given the seed's late failure (LateFault) on its second controller.
package sim
