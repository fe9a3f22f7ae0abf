package upgrade

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/state"
)

// Versions is what a host reports: the control-plane version (controllers: the lowest image tag
// of kube-apiserver, controller-manager and scheduler), `kubelet --version` and `kubeadm version
// -o short` ("" when the host has no kubeadm). kubeadm's probe reads them all in one command.
type Versions struct {
	ControlPlane string
	Kubelet      string
	Kubeadm      string
}

// ReadVersions reads the versions of hs over SSH, all hosts at once.
func (w *Workflow) ReadVersions(ctx context.Context, hs []*inventory.Host, controlPlane bool) (map[string]Versions, error) {
	var mu sync.Mutex
	out := make(map[string]Versions, len(hs))
	errs := make([]error, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := w.readHost(ctx, h, controlPlane)
			if err != nil {
				errs[i] = fmt.Errorf("read versions of %s: %w", h.Name, err)
				if errors.Is(err, fault.ErrUnreachable) { // its message names the host already
					errs[i] = fmt.Errorf("read versions: %w", err)
				}
				errs[i] = onHost(h.Name, errs[i])
				return
			}
			mu.Lock()
			out[h.Name] = v
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// readHost probes h (one command) for its kubelet's and kubeadm's versions and, when
// controlPlane, a controller's manifests.
func (w *Workflow) readHost(ctx context.Context, h *inventory.Host, controlPlane bool) (Versions, error) {
	snap, err := w.readSnapshot(ctx, h)
	if err != nil {
		return Versions{}, err
	}
	v := Versions{Kubelet: snap.Installed.Kubelet, Kubeadm: snap.Installed.Kubeadm}
	if controlPlane && state.Personality(h.Personality()) == state.Controller {
		v.ControlPlane = snap.ControlPlaneVersion()
	}
	return v, snap.Installed.KubeletErr()
}

// readSnapshot reads h's kubelet config, manifests, kubeadm folders and versions over SSH.
func (w *Workflow) readSnapshot(ctx context.Context, h *inventory.Host) (kubeadm.Snapshot, error) {
	c, err := w.Runner.Conn(ctx, h)
	if err != nil {
		return kubeadm.Snapshot{}, err
	}
	return w.readProbe(ctx, c)
}

// refresh reads the versions of hs (the control plane's too when controlPlane) and records them.
func (w *Workflow) refresh(ctx context.Context, hs []*inventory.Host, controlPlane bool) error {
	vs, err := w.ReadVersions(ctx, hs, controlPlane)
	if err != nil {
		return err
	}
	now := w.Store.Now()
	for name, v := range vs {
		if err := w.Store.SetVersions(ctx, w.Cluster, name, v.ControlPlane, v.Kubelet, now); err != nil {
			return err
		}
	}
	return nil
}

// Refresh reads the live versions of every node of the inventory (Nodes) and stores them (host
// list --refresh).
func (w *Workflow) Refresh(ctx context.Context) error {
	return w.refresh(ctx, w.Inventory.Nodes(), true)
}

// Start creates the upgrade to version to. With from == "", the current version is read over SSH
// (the lowest control-plane version of the controllers), and controllers that disagree are
// refused unless force.
func (w *Workflow) Start(ctx context.Context, to, from string, force bool) (state.Upgrade, error) {
	nu, err := w.PrepareStart(ctx, to, from, force)
	if err != nil {
		return state.Upgrade{}, err
	}
	return w.Store.CreateUpgrade(ctx, nu)
}

// PrepareStart is the upgrade Start would create, refused as early as can be: an upgrade of the
// cluster in the database first (no host is asked), then the versions (read over SSH unless
// from is given). Nothing is written; Store.CreateUpgrade creates it, refusing one created since.
func (w *Workflow) PrepareStart(ctx context.Context, to, from string, force bool) (state.NewUpgrade, error) {
	old, err := w.Store.Upgrade(ctx, w.Cluster)
	if err == nil || errors.Is(err, state.ErrBadRow) {
		dup := fmt.Errorf("%w: an upgrade of cluster %q to %s exists already (state %s)", state.ErrRefused, w.Cluster, old.ToVersion, old.State)
		return state.NewUpgrade{}, state.WithNextSteps(dup, "; finish it, or abort and delete it (`%s`, `%s`)",
			state.Next("upgrade", "abort"), state.Next("upgrade", "delete"))
	}
	if !errors.Is(err, state.ErrNotFound) {
		return state.NewUpgrade{}, err
	}
	return w.newUpgrade(ctx, to, from, force)
}

// newUpgrade is the upgrade Start would create, every check of the versions done: nothing is
// written.
func (w *Workflow) newUpgrade(ctx context.Context, to, from string, force bool) (state.NewUpgrade, error) {
	toV, err := state.ParseVersion(to)
	if err != nil {
		return state.NewUpgrade{}, err
	}
	cs, err := w.controllerHosts()
	if err != nil {
		return state.NewUpgrade{}, err
	}
	var vs map[string]Versions
	if from == "" {
		if vs, err = w.ReadVersions(ctx, w.Inventory.Nodes(), true); err != nil {
			return state.NewUpgrade{}, err
		}
		if from, err = agreedVersion(cs, vs, force); err != nil {
			return state.NewUpgrade{}, err
		}
	}
	fromV, err := state.ParseVersion(from)
	if err != nil {
		return state.NewUpgrade{}, err
	}
	hops, err := Hops(w.Inventory, fromV, toV, force)
	if err != nil {
		return state.NewUpgrade{}, err
	}
	// One spelling in the store (v1.30.1, as the hosts report it), however the operator typed it.
	from, to = fromV.String(), toV.String()
	nu := state.NewUpgrade{Cluster: w.Cluster, FromVersion: from, ToVersion: to, Hops: hops, Actor: state.ActorCLI,
		Reason: fmt.Sprintf("upgrade %s -> %s started", from, to)}
	if len(hops) > 1 {
		nu.Reason = fmt.Sprintf("upgrade %s -> %s started, in %d hops: %s", from, to, len(hops), strings.Join(hops, ", "))
	}
	for _, h := range w.Inventory.Nodes() {
		v := vs[h.Name]
		nu.Hosts = append(nu.Hosts, state.NewHost{Hostname: h.Name, Personality: personality(h),
			ControlPlaneVersion: v.ControlPlane, KubeletVersion: v.Kubelet})
	}
	return nu, nil
}

func personality(h *inventory.Host) state.Personality {
	if p := h.Personality(); p != "" {
		return state.Personality(p)
	}
	return state.Worker
}

// agreedVersion is the controllers' common control-plane version: the lowest one with force,
// else an error listing who reports what.
func agreedVersion(cs []*inventory.Host, vs map[string]Versions, force bool) (string, error) {
	seen := map[string][]string{}
	var all []string
	for _, h := range cs {
		v := vs[h.Name].ControlPlane
		if v == "" {
			return "", fmt.Errorf("controller %s reports no control-plane version (no manifests in /etc/kubernetes/manifests?); give --from-version: %w", h.Name, state.ErrRefused)
		}
		if len(seen[v]) == 0 {
			all = append(all, v)
		}
		seen[v] = append(seen[v], h.Name)
	}
	sort.Slice(all, func(i, j int) bool {
		a, _ := state.ParseVersion(all[i])
		b, _ := state.ParseVersion(all[j])
		return a.Compare(b) < 0
	})
	if len(all) > 1 && !force {
		var parts []string
		for _, v := range all {
			parts = append(parts, fmt.Sprintf("%s on %s", v, strings.Join(seen[v], ", ")))
		}
		return "", fmt.Errorf("the controllers disagree on the control-plane version (%s); finish or undo the earlier upgrade, or pass --ignore-version-checks to start from the lowest: %w", strings.Join(parts, "; "), state.ErrRefused)
	}
	return all[0], nil
}
