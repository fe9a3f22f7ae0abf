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
	case a == "upgrade apply" || strings.HasPrefix(a, "upgrade apply "):
		return h.upgradeApply(ctx, hc, args[2:])
	case a == "upgrade node" || strings.HasPrefix(a, "upgrade node "):
		return h.upgradeNode(ctx, hc)
	case strings.HasPrefix(a, "config images pull"):
		return h.imagesPull(hc, args[3:])
	case strings.HasPrefix(a, "version"):
		return h.kubeadmVersion(hc, a)
	}
	return failKubeadm(hc.Stderr, "kupgrade sim kubeadm: unsupported command %q (upgrade apply|node, config images pull, version)", a)
}

// kubeadmVersion is `kubeadm version [-o short]`: the version the host's kubeadm package has.
func (h *Host) kubeadmVersion(hc interp.HandlerContext, a string) int {
	v := h.kubeadmInstalled()
	if strings.Contains(a, "short") {
		fmt.Fprintln(hc.Stdout, v)
		return 0
	}
	minor := ""
	if pv, err := state.ParseVersion(v); err == nil {
		minor = fmt.Sprint(pv.Minor)
	}
	fmt.Fprintf(hc.Stdout, "kubeadm version: &version.Info{Major:\"1\", Minor:\"%s\", GitVersion:\"%s\", GoVersion:\"go1.22\", Compiler:\"gc\", Platform:\"linux/amd64\"}\n", minor, v)
	return 0
}

func (h *Host) kubeadmInstalled() string {
	v, ok := h.File(labDir + "/kubeadm-version")
	if !ok {
		return "v0.0.0"
	}
	return strings.TrimSpace(v)
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
		if !validVersion.MatchString(args[1]) {
			fmt.Fprintf(hc.Stderr, "kupgrade-lab-kubelet: bad version %q (want vX.Y.Z)\n", args[1])
			return 2
		}
		h.disk.write(labDir+"/kubelet-installed", []byte(args[1]+"\n"), time.Now())
		fmt.Fprintf(hc.Stdout, "kubelet %s installed\n", args[1])
	case len(args) == 1 && args[0] == "restart":
		v := h.disk[labDir+"/kubelet-installed"].data
		h.disk.write(labDir+"/kubelet-running", v, time.Now())
		if !h.staleStatus() {
			h.disk.write(nodeStatus, v, time.Now())
		}
		fmt.Fprintf(hc.Stdout, "kubelet restarted, running %s", v)
	default:
		fmt.Fprintln(hc.Stderr, "usage: kupgrade-lab-kubelet install VERSION | restart")
		return 2
	}
	return 0
}

// labKubeadm is the lab's kupgrade-lab-kubeadm: `install VERSION` stands in for installing the
// kubeadm package at VERSION; only `kubeadm version` reports it.
func (h *Host) labKubeadm(_ context.Context, hc interp.HandlerContext, args []string) int {
	if len(args) != 2 || args[0] != "install" {
		fmt.Fprintln(hc.Stderr, "usage: kupgrade-lab-kubeadm install VERSION")
		return 2
	}
	if !validVersion.MatchString(args[1]) {
		fmt.Fprintf(hc.Stderr, "kupgrade-lab-kubeadm: bad version %q (want vX.Y.Z)\n", args[1])
		return 2
	}
	h.writeFile(labDir+"/kubeadm-version", args[1]+"\n")
	fmt.Fprintf(hc.Stdout, "kubeadm %s installed\n", args[1])
	return 0
}

// nodeStatus is the kubelet version the node's status in the API server reports.
const nodeStatus = labDir + "/node-status"

// staleStatus is whether a Stale fault keeps the node's status from being posted at this restart
// (every restart until the fault is cleared, or once); h.mu is held.
func (h *Host) staleStatus() bool {
	file, ok := h.disk[FaultFile]
	if !ok || file.dir {
		return false
	}
	f := parseFault(string(file.data))
	if f.Phase != PhaseKubeletStatus || f.Action != Stale {
		return false
	}
	if f.Once {
		h.disk.removeAll(FaultFile)
	}
	return true
}
