package sim

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/kupgrade/kupgrade/state"
	"mvdan.cc/sh/v3/interp"
)

// step is one phase of `kubeadm upgrade`: its name, and what it does (nil: nothing but its two
// fault points).
type step struct {
	name string
	run  func() int
}

// phases runs the steps in order, each between its two fault points, as the lab's kubeadm does.
func (h *Host) phases(ctx context.Context, hc interp.HandlerContext, steps []step) int {
	for _, s := range steps {
		if rc, stop := h.faultPoint(ctx, hc, true, s.name); stop {
			return rc
		}
		if s.run != nil {
			if rc := s.run(); rc != 0 {
				return rc
			}
		}
		if rc, stop := h.faultPoint(ctx, hc, false, s.name); stop {
			return rc
		}
	}
	return 0
}

func (h *Host) upgradeApply(ctx context.Context, hc interp.HandlerContext, args []string) int {
	target, yes := "", false
	for _, a := range args {
		switch {
		case a == "-y" || a == "--yes" || a == "--yes=true":
			yes = true
		case !strings.HasPrefix(a, "-") && target == "":
			target = a
		}
	}
	if target == "" {
		return failKubeadm(hc.Stderr, "missing one or more required arguments. Required arguments: [version]")
	}
	out := hc.Stdout
	rc := h.phases(ctx, hc, []step{
		{"config", nil},
		{"preflight", func() int { return h.applyPreflight(hc, target, yes) }},
		{"control-plane", func() int { return h.applyControlPlane(out, target) }},
		{"kubelet-config", func() int { h.writeKubeletConfig(out, target); return 0 }},
		{"addon", func() int { applyAddons(out); return 0 }},
		{"post-upgrade", nil},
	})
	if rc == 0 {
		fmt.Fprintf(out, "\n[upgrade/successful] SUCCESS! Your cluster was upgraded to %q. Enjoy!\n\n", target)
		fmt.Fprintln(out, "[upgrade/kubelet] Now that your control plane is upgraded, please proceed with upgrading your kubelets if you haven't already done so.")
	}
	return rc
}

var validVersion = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

func (h *Host) applyPreflight(hc interp.HandlerContext, target string, yes bool) int {
	fmt.Fprintln(hc.Stdout, "[preflight] Running pre-flight checks.")
	fmt.Fprintln(hc.Stdout, "[upgrade/config] Reading configuration from the cluster...")
	cur := h.cluster.version()
	fmt.Fprintln(hc.Stdout, "[upgrade] Running cluster health checks")
	if rc := checkTarget(hc.Stderr, cur, target); rc != 0 {
		return rc
	}
	fmt.Fprintf(hc.Stdout, "[upgrade/version] You have chosen to change the cluster version to %q\n", target)
	fmt.Fprintf(hc.Stdout, "[upgrade/versions] Cluster version: %s\n[upgrade/versions] kubeadm version: %s\n", cur, h.kubeadmInstalled())
	if !yes && !confirmed(hc) {
		return failKubeadm(hc.Stderr, "won't proceed; the user didn't answer (Y|y) in order to continue")
	}
	fmt.Fprintln(hc.Stdout, "[upgrade/preflight] Pulling images required for setting up a Kubernetes cluster")
	return 0
}

// confirmed asks kubeadm's question and reads the answer from stdin.
func confirmed(hc interp.HandlerContext) bool {
	fmt.Fprint(hc.Stdout, "[upgrade] Are you sure you want to proceed? [y/N]: ")
	if hc.Stdin == nil {
		return false
	}
	var answer [1]byte
	n, _ := hc.Stdin.Read(answer[:])
	return n == 1 && (answer[0] == 'y' || answer[0] == 'Y')
}

// checkTarget is kubeadm's version policy, as the lab's check_target has it: no downgrade, one
// minor at a time; the cluster's own version again is allowed (a redo).
func checkTarget(w io.Writer, cur, target string) int {
	if !validVersion.MatchString(target) {
		return failKubeadm(w, "[upgrade/version] FATAL: unable to parse version %q", target)
	}
	tv, _ := state.ParseVersion(target)
	cv, err := state.ParseVersion(cur)
	msg := ""
	switch {
	case err != nil:
	case tv.Compare(cv) < 0:
		msg = fmt.Sprintf("Specified version to downgrade to %q is lower than the cluster version %q; kupgrade sim's kubeadm refuses downgrades", target, cur)
	case tv.Minor > cv.Minor+1:
		msg = fmt.Sprintf("Specified version to upgrade to %q is too high; kubeadm can upgrade only 1 minor version at a time", target)
	}
	if msg == "" {
		return 0
	}
	fmt.Fprintf(w, "[upgrade/version] FATAL: the --version argument is invalid due to these errors:\n\n\t- %s\n\n", msg)
	return failKubeadm(w, "error execution phase preflight: [upgrade/version] version policy refused %q", target)
}

func (h *Host) applyControlPlane(w io.Writer, target string) int {
	fmt.Fprintf(w, "[upgrade/apply] Upgrading your Static Pod-hosted control plane to version %q (timeout: 5m0s)...\n", target)
	h.staticPods(w, target)
	fmt.Fprintln(w, `[upload-config] Storing the configuration used in ConfigMap "kubeadm-config" in the "kube-system" Namespace`)
	h.cluster.setVersion(target)
	return 0
}

func applyAddons(w io.Writer) {
	fmt.Fprintln(w, "[addons] Applied essential addon: CoreDNS")
	fmt.Fprintln(w, "[addons] Applied essential addon: kube-proxy")
}

func (h *Host) upgradeNode(ctx context.Context, hc interp.HandlerContext) int {
	v, out := h.cluster.version(), hc.Stdout
	cp := h.isControlPlane()
	rc := h.phases(ctx, hc, []step{
		{"config", nil},
		{"preflight", func() int { nodePreflight(out, cp); return 0 }},
		{"control-plane", func() int { h.nodeControlPlane(out, cp, v); return 0 }},
		{"kubelet-config", func() int { h.writeKubeletConfig(out, v); return 0 }},
		{"addon", func() int { nodeAddons(out, cp); return 0 }},
		{"post-upgrade", nil},
	})
	if rc == 0 {
		fmt.Fprintln(out, "[upgrade] The configuration for this node was successfully updated!")
		fmt.Fprintln(out, "[upgrade] Now you should go ahead and upgrade the kubelet package using your package manager.")
	}
	return rc
}

func nodePreflight(w io.Writer, cp bool) {
	fmt.Fprintln(w, "[upgrade] Reading configuration from the cluster...")
	fmt.Fprintln(w, "[preflight] Running pre-flight checks")
	if cp {
		fmt.Fprintln(w, "[upgrade/preflight] Pulling images required for setting up a Kubernetes cluster")
	} else {
		fmt.Fprintln(w, "[preflight] Skipping prepull. Not a control plane node.")
	}
}

func (h *Host) nodeControlPlane(w io.Writer, cp bool, v string) {
	if !cp {
		fmt.Fprintln(w, "[upgrade] Skipping phase. Not a control plane node.")
		return
	}
	fmt.Fprintf(w, "[upgrade/control-plane] Upgrading your Static Pod-hosted control plane instance to version %q...\n", v)
	h.staticPods(w, v)
}

func nodeAddons(w io.Writer, cp bool) {
	if cp {
		applyAddons(w)
		return
	}
	fmt.Fprintln(w, "[upgrade/addon] Skipping the addon phase. Not a control plane node.")
}
