package upgrade

import (
	"context"
	"fmt"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/jinja"
	"github.com/kupgrade/kupgrade/state"
)

// kubernetesPackages are the packages the playbooks install and hold.
var kubernetesPackages = []string{"kubeadm", "kubelet", "kubectl"}

// packageHosts are the inventory's nodes (Nodes) as the packages health check asks them, read with the
// conditions the playbooks install under: kupgrade_install_packages (default true) and the
// site's own commands, kupgrade_kubeadm_install and kupgrade_kubelet_install, whose packages
// kupgrade does not ask for; ansible_pkg_mgr picks the package manager.
func (w *Workflow) packageHosts() ([]health.PackageHost, error) {
	var out []health.PackageHost
	for _, h := range w.Inventory.Nodes() {
		install, err := jinja.Cond("kupgrade_install_packages | default(true) | bool", h.Vars)
		if err != nil {
			return nil, fmt.Errorf("%w: inventory %s: host %s: kupgrade_install_packages: %v (want true or false)", state.ErrBadInput, w.Inventory.Path, h.Name, err)
		}
		_, ownKubeadm := h.Var("kupgrade_kubeadm_install")
		_, ownKubelet := h.Var("kupgrade_kubelet_install")
		ph := health.PackageHost{Name: h.Name, Manager: pkgManager(h), Kubeadm: !ownKubeadm, Kubelets: !ownKubelet, Packages: kubernetesPackages}
		switch {
		case !install:
			ph.Skip = "kupgrade_install_packages is false: the site installs kubeadm, the kubelet and kubectl its own way"
		case ownKubeadm && ownKubelet:
			ph.Skip = "kupgrade_kubeadm_install and kupgrade_kubelet_install are set: the site's own commands install the packages"
		}
		out = append(out, ph)
	}
	return out, nil
}

// hopsTo is the packages check's hop planner: the versions an upgrade from from to to walks, as
// `upgrade start` plans them (nil for one hop). A zero from (the cluster could not say) is the
// controllers' lowest control-plane version, read over SSH as `upgrade start` reads it.
func (w *Workflow) hopsTo(ctx context.Context, to state.Version) func(from state.Version) ([]state.Version, error) {
	return func(from state.Version) ([]state.Version, error) {
		if from.Major == 0 {
			var err error
			if from, err = w.lowestControlPlane(ctx); err != nil {
				return nil, err
			}
		}
		hops, err := Hops(w.Inventory, from, to, false)
		if err != nil || hops == nil {
			return nil, err
		}
		out := make([]state.Version, len(hops))
		for i, h := range hops {
			if out[i], err = state.ParseVersion(h); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// lowestControlPlane is the lowest control-plane version the controllers' manifests report.
func (w *Workflow) lowestControlPlane(ctx context.Context) (state.Version, error) {
	cs, err := w.controllerHosts()
	if err != nil {
		return state.Version{}, err
	}
	vs, err := w.ReadVersions(ctx, cs, true)
	if err != nil {
		return state.Version{}, err
	}
	var low state.Version
	for _, v := range vs {
		if pv, err := state.ParseVersion(v.ControlPlane); err == nil && (low.Major == 0 || pv.Compare(low) < 0) {
			low = pv
		}
	}
	if low.Major == 0 {
		return low, fmt.Errorf("no controller reports a control-plane version")
	}
	return low, nil
}
