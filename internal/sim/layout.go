package sim

import (
	"path"
	"time"
)

// Layout is a node's kubeadm state, as the lab's kupgrade-lab-init lays it out: the static-pod
// manifests of a controller, the kubelet config and the kubelet at Version, and a kubeadm package
// at Kubeadm.
type Layout struct {
	Version    string
	Kubeadm    string // default Version
	Controller bool
}

// Reset lays h out again at l: its manifests, kubelet config, kubeadm backups and fault are
// removed first. The cluster's version is left as it is (Cluster.SetVersion).
func (h *Host) Reset(l Layout) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range []string{manifests, ktmp, kubeletConfig, FaultFile} {
		h.disk.removeAll(p)
	}
	h.lay(l, time.Now())
}

// lay writes l on h's disk; h.mu is held (or h is not shared yet).
func (h *Host) lay(l Layout, now time.Time) {
	if l.Kubeadm == "" {
		l.Kubeadm = l.Version
	}
	h.disk.mkdirAll(ktmp, now)
	h.disk.write(kubeletConfig, render("kubelet-config.yaml", l.Version, h.Name), now)
	h.disk.write(labDir+"/kubelet-installed", []byte(l.Version+"\n"), now)
	h.disk.write(labDir+"/kubelet-running", []byte(l.Version+"\n"), now)
	h.disk.write(nodeStatus, []byte(l.Version+"\n"), now)
	h.disk.write(labDir+"/kubeadm-version", []byte(l.Kubeadm+"\n"), now)
	if l.Controller {
		for _, c := range components {
			h.disk.write(manifests+"/"+c+".yaml", render(c+".yaml", l.Version, h.Name), now)
		}
		h.layPKI(now)
	}
}

// ReadDir lists the names of the entries of folder p of h's disk, sorted (none when p is not
// there).
func (h *Host) ReadDir(p string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var names []string
	for _, c := range h.disk.children(path.Clean(p)) {
		names = append(names, path.Base(c))
	}
	return names
}

// SetVersion sets the cluster's version (its kubeadm-config), as `kubeadm upgrade apply` does.
func (c *Cluster) SetVersion(v string) { c.setVersion(v) }
