package sim

import (
	"context"
	"embed"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/state"
	"mvdan.cc/sh/v3/interp"
)

// The paths of a kubeadm node, as the lab's lib.sh has them.
const (
	manifests     = "/etc/kubernetes/manifests"
	ktmp          = "/etc/kubernetes/tmp"
	kubeletConfig = "/var/lib/kubelet/config.yaml"
	labDir        = "/var/lib/kupgrade-lab"
)

var components = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// templates are the lab's (integration/lab/image/rootfs/usr/share/kupgrade-lab/templates); a
// test keeps the copies equal.
//
//go:embed templates/*.yaml
var templates embed.FS

// render is the lab's render: the template with the version and the node's values.
func render(name, version, node string) []byte {
	b, err := templates.ReadFile("templates/" + name)
	if err != nil {
		panic(fmt.Sprintf("sim: template %s: %v", name, err))
	}
	return []byte(strings.NewReplacer("@VERSION@", version, "@ADDRESS@", "127.0.0.1", "@NODE_NAME@", node).Replace(string(b)))
}

// errPhase is a kubeadm failure: its message, then kubeadm's hint, exit 1.
func failKubeadm(w io.Writer, format string, args ...any) int {
	fmt.Fprintf(w, format+"\n", args...)
	fmt.Fprintln(w, "To see the stack trace of this error execute with --v=5 or higher")
	return 1
}

func (h *Host) kubeadm(ctx context.Context, hc interp.HandlerContext, args []string) int {
	n := h.running.Add(1)
	defer h.running.Add(-1)
	h.runs.Add(1)
	for m := h.maxRun.Load(); n > m && !h.maxRun.CompareAndSwap(m, n); m = h.maxRun.Load() {
	}
	a := strings.Join(args, " ")
	if d := h.cluster.fleet.opts.KubeadmDelay; d > 0 && strings.HasPrefix(a, "upgrade ") {
		select {
		case <-ctx.Done():
			return failKubeadm(hc.Stderr, "kubeadm: %v", ctx.Err())
		case <-time.After(d):
		}
	}
	switch {
	case strings.HasPrefix(a, "upgrade apply "):
		return h.upgradeApply(hc, args[2:])
	case a == "upgrade node" || strings.HasPrefix(a, "upgrade node "):
		return h.upgradeNode(hc)
	case strings.HasPrefix(a, "config images pull"):
		return h.imagesPull(hc, args[3:])
	case strings.HasPrefix(a, "version"):
		fmt.Fprintln(hc.Stdout, h.cluster.fleet.opts.To)
		return 0
	}
	return failKubeadm(hc.Stderr, "kupgrade sim kubeadm: unsupported command %q (upgrade apply|node, config images pull, version)", a)
}

func (h *Host) upgradeApply(hc interp.HandlerContext, args []string) int {
	target := ""
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && target == "" {
			target = a
		}
	}
	cur := h.cluster.version()
	tv, err := state.ParseVersion(target)
	if err != nil {
		return failKubeadm(hc.Stderr, "[upgrade/version] FATAL: unable to parse version %q", target)
	}
	// The lab's check_target: no downgrade, one minor at a time; the same version again is
	// allowed (a redo after a failure or a crash).
	if cv, err := state.ParseVersion(cur); err == nil {
		switch {
		case tv.Compare(cv) < 0:
			return failKubeadm(hc.Stderr, "error execution phase preflight: [upgrade/version] version policy refused %q: lower than the cluster version %q", target, cur)
		case tv.Minor > cv.Minor+1:
			return failKubeadm(hc.Stderr, "error execution phase preflight: [upgrade/version] version policy refused %q: kubeadm can upgrade only 1 minor version at a time", target)
		}
	}
	fmt.Fprintf(hc.Stdout, "[upgrade/version] You have chosen to change the cluster version to %q\n", target)
	h.staticPods(hc.Stdout, target)
	h.cluster.setVersion(target)
	if rc := h.kubeletPhase(hc, target, false); rc != 0 {
		return rc
	}
	fmt.Fprintf(hc.Stdout, "[upgrade/successful] SUCCESS! Your cluster was upgraded to %q. Enjoy!\n", target)
	return 0
}

func (h *Host) upgradeNode(hc interp.HandlerContext) int {
	v := h.cluster.version()
	if h.isControlPlane() {
		h.staticPods(hc.Stdout, v)
	} else {
		fmt.Fprintln(hc.Stdout, "[upgrade] Skipping phase. Not a control plane node.")
	}
	if rc := h.kubeletPhase(hc, v, h.Controller); rc != 0 {
		return rc
	}
	fmt.Fprintln(hc.Stdout, "[upgrade] The configuration for this node was successfully updated!")
	return 0
}

func (h *Host) imagesPull(hc interp.HandlerContext, args []string) int {
	v := ""
	for i, a := range args {
		if a == "--kubernetes-version" && i+1 < len(args) {
			v = args[i+1]
		}
		if s, ok := strings.CutPrefix(a, "--kubernetes-version="); ok {
			v = s
		}
	}
	for _, c := range append(components, "kube-proxy") {
		fmt.Fprintf(hc.Stdout, "[config/images] Pulled registry.k8s.io/%s:%s\n", c, v)
	}
	return 0
}

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
	for _, c := range components {
		p := manifests + "/" + c + ".yaml"
		next := render(c+".yaml", v, h.Name)
		if cur, ok := h.disk[p]; ok && string(cur.data) == string(next) {
			fmt.Fprintf(w, "[upgrade/staticpods] Current and new manifests of %s are equal, skipping upgrade\n", c)
			continue
		}
		h.disk.rename(p, backup+"/"+c+".yaml")
		h.disk.write(p, next, now)
		fmt.Fprintf(w, "[upgrade/staticpods] Component %q upgraded successfully!\n", c)
	}
}

// kubeletPhase writes the kubelet config (its old copy backed up), then, on a cluster given a
// late failure, fails once right after it, on the second controller's `upgrade node`.
func (h *Host) kubeletPhase(hc interp.HandlerContext, v string, node bool) int {
	now := time.Now()
	h.mu.Lock()
	backup := h.timestampDir("kubeadm-kubelet-config", now)
	if old, ok := h.disk[kubeletConfig]; ok {
		h.disk[backup+"/config.yaml"] = &memFile{data: old.data, mode: old.mode, mtime: old.mtime}
	}
	h.disk.write(kubeletConfig, render("kubelet-config.yaml", v, h.Name), now)
	h.mu.Unlock()
	fmt.Fprintf(hc.Stdout, "[kubelet-start] Writing kubelet configuration to file %q\n", kubeletConfig)
	if node && h.cluster.takeLateFailure() {
		return failKubeadm(hc.Stderr, "error execution phase kubelet-config: failure injected by kupgrade sim (exit status 1)")
	}
	return 0
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

// kubelet is `kubelet --version`.
func (h *Host) kubelet(_ context.Context, hc interp.HandlerContext, args []string) int {
	if len(args) == 0 || (args[0] != "--version" && args[0] != "version") {
		fmt.Fprintln(hc.Stderr, "kupgrade sim kubelet: only --version is simulated")
		return 1
	}
	v, _ := h.File(labDir + "/kubelet-installed")
	fmt.Fprintf(hc.Stdout, "Kubernetes %s\n", strings.TrimSpace(v))
	return 0
}

// labKubelet is the lab's kupgrade-lab-kubelet: install VERSION | restart.
func (h *Host) labKubelet(_ context.Context, hc interp.HandlerContext, args []string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case len(args) == 2 && args[0] == "install":
		if _, err := state.ParseVersion(args[1]); err != nil {
			fmt.Fprintf(hc.Stderr, "kupgrade-lab-kubelet: bad version %q (want vX.Y.Z)\n", args[1])
			return 2
		}
		h.disk.write(labDir+"/kubelet-installed", []byte(args[1]+"\n"), time.Now())
		fmt.Fprintf(hc.Stdout, "kubelet %s installed\n", args[1])
	case len(args) == 1 && args[0] == "restart":
		v := h.disk[labDir+"/kubelet-installed"].data
		h.disk.write(labDir+"/kubelet-running", v, time.Now())
		fmt.Fprintf(hc.Stdout, "kubelet restarted, running %s", v)
	default:
		fmt.Fprintln(hc.Stderr, "usage: kupgrade-lab-kubelet install VERSION | restart")
		return 2
	}
	return 0
}
