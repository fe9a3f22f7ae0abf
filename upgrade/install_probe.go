package upgrade

import (
	"context"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner"
)

// installTask reports whether a failed task is one of the playbooks' package installs ("Install
// kubeadm v1.31.1", "Install the kubelet and kubectl v1.31.1").
func installTask(task string) bool { return strings.HasPrefix(task, "Install ") }

// pkgManager is the host's ansible_pkg_mgr, "" when the inventory does not set it.
func pkgManager(h *inventory.Host) string {
	if m, ok := h.Var("ansible_pkg_mgr"); ok && m != nil {
		return fmt.Sprint(m)
	}
	return ""
}

// packagesNow is, for the finding after a failed install, the versions of kubeadm, the kubelet
// and kubectl installed on h and whether each is held, as a sentence.
func (w *Workflow) packagesNow(ctx context.Context, h *inventory.Host) string {
	pkgs, err := w.readPackages(ctx, h)
	if err != nil {
		return " The installed packages could not be read: " + err.Error() + "."
	}
	if len(pkgs) == 0 {
		return " None of " + strings.Join(kubernetesPackages, ", ") + " is installed now."
	}
	spelled := make([]string, len(pkgs))
	for i, p := range pkgs {
		spelled[i] = p.String()
	}
	return " Installed now: " + strings.Join(spelled, ", ") + "."
}

// readPackages asks h's package manager, as root, for the installed versions and holds of
// kubeadm, the kubelet and kubectl.
func (w *Workflow) readPackages(ctx context.Context, h *inventory.Host) ([]health.Package, error) {
	c, err := w.Runner.Conn(ctx, h)
	if err != nil {
		return nil, err
	}
	rc, out, stderr, err := runner.ExecOn(c, true)(ctx, health.InstalledScript(pkgManager(h), kubernetesPackages), nil)
	if err != nil {
		return nil, err
	}
	if rc != 0 {
		return nil, fmt.Errorf("exit status %d: %s", rc, strings.TrimSpace(stderr))
	}
	return health.ParseInstalled(out)
}
