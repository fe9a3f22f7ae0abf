// Package lab runs kupgrade's labs: Docker containers that look like kubeadm nodes over real
// OpenSSH, with a simulated kubeadm (and kubelet, kubectl) that changes the disk the way the real
// one does, and fault injection to make an upgrade fail late, hang or lose its connection. It
// also runs MariaDB from the same image for the MySQL store.
//
// The image is built locally with no registry (debootstrap, then docker import) from the recipe
// in image/, tagged by a hash of that recipe and reused while the recipe is unchanged; an
// interrupted build never leaves the final tag behind (EnsureImage).
//
// Guarantees: every container, network and volume a lab creates carries the label
// kupgrade-lab=<lab name>, so Down (or Purge) removes all of it; labs started by tests are
// purged in t.Cleanup, and their containers also stop on their own after an expiry, so a test
// killed half way leaves nothing running. Ports are published on 127.0.0.1 only, and a node
// keeps its port across Stop and Start, so the inventory stays valid.
package lab
