package sim

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

func (h *Host) isControlPlane() bool {
	_, ok := h.File(manifests + "/kube-apiserver.yaml")
	return ok
}

// staticPods is the control-plane phase: each manifest that changes is moved to the backup folder
// and replaced; equal ones are skipped.
func (h *Host) staticPods(w io.Writer, v string) {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	backup := h.timestampDir("kubeadm-backup-manifests", now)
	fmt.Fprintf(w, "[upgrade/staticpods] Writing new Static Pod manifests to %q\n", ktmp+"/kubeadm-upgraded-manifests")
	for _, c := range components {
		p := manifests + "/" + c + ".yaml"
		next := render(c+".yaml", v, h.Name)
		fmt.Fprintf(w, "[upgrade/staticpods] Preparing for %q upgrade\n", c)
		if cur, ok := h.disk[p]; ok && string(cur.data) == string(next) {
			fmt.Fprintf(w, "[upgrade/staticpods] Current and new manifests of %s are equal, skipping upgrade\n", c)
			continue
		}
		h.disk.rename(p, backup+"/"+c+".yaml")
		h.disk.write(p, next, now)
		fmt.Fprintf(w, "[upgrade/staticpods] Moved new manifest to %q and backed up old manifest to %q\n", p, backup+"/"+c+".yaml")
		fmt.Fprintf(w, "[upgrade/staticpods] Component %q upgraded successfully!\n", c)
	}
}

// writeKubeletConfig is the kubelet-config phase: the old config backed up into a
// kubeadm-kubelet-config folder, the new one written.
func (h *Host) writeKubeletConfig(w io.Writer, v string) {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	backup := h.tempDir("kubeadm-kubelet-config", now)
	fmt.Fprintf(w, "[upgrade] Backing up kubelet config file to %s/config.yaml\n", backup)
	if old, ok := h.disk[kubeletConfig]; ok {
		h.disk[backup+"/config.yaml"] = &memFile{data: old.data, mode: old.mode, mtime: old.mtime}
	}
	fmt.Fprintf(w, "[kubelet-start] Writing kubelet configuration to file %q\n", kubeletConfig)
	h.disk.write(kubeletConfig, render("kubelet-config.yaml", v, h.Name), now)
}

// timestampDir creates ktmp/PREFIX-<time> as kubeadm names it (a numbered suffix within one
// second); h.mu is held.
func (h *Host) timestampDir(prefix string, now time.Time) string {
	base := ktmp + "/" + prefix + "-" + now.UTC().Format("2006-01-02-15-04-05")
	dir := base
	for n := 1; ; n++ {
		if _, ok := h.disk[dir]; !ok {
			break
		}
		dir = fmt.Sprintf("%s-%d", base, n)
	}
	h.disk.mkdirAll(dir, now)
	return dir
}

// tempDir creates ktmp/PREFIX<random decimal>, as kubeadm's os.MkdirTemp names it; h.mu is held.
func (h *Host) tempDir(prefix string, now time.Time) string {
	for {
		dir := fmt.Sprintf("%s/%s%d", ktmp, prefix, rand.Uint32())
		if _, ok := h.disk[dir]; !ok {
			h.disk.mkdirAll(dir, now)
			return dir
		}
	}
}
