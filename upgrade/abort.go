package upgrade

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// restore is what abort puts back on one controller: the manifests at the tags its first
// control-plane step of this upgrade found, from the backup folders kubeadm made during this
// upgrade only, and config.yaml with the checksum it had.
type restore struct {
	host   *inventory.Host
	before state.Backups
	// dirs are the folders made during this upgrade, oldest first: the recorded ones, then any
	// the host holds that were neither there before nor recorded (a run killed before it could
	// record its folder).
	dirs, kubeletDirs []string
	// etcdFrom and etcdNow are the etcd manifest's tag as the upgrade found it and as it is now
	// ("" without a stacked etcd).
	etcdFrom, etcdNow string
	// kubeadm: the control-plane step left kubeadm off the from version here; it goes back.
	kubeadm bool
}

// asideTags reads the manifests an etcd restore of u moved aside on the controller behind c:
// their tags by component (none when nothing is aside).
func (w *Workflow) asideTags(ctx context.Context, c runner.Conn, u state.Upgrade) (map[string]string, error) {
	out, err := runScript(ctx, c, asideScript(u.UUID))
	if err != nil {
		return nil, err
	}
	tags := map[string]string{}
	for line := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), restoreMark+"aside "); ok {
			comp, tag, _ := strings.Cut(rest, " ")
			tags[comp] = tag
		}
	}
	return tags, nil
}

// withAside is snap with the manifests an etcd restore of u left aside counted as in place (a
// retry of an abort interrupted while etcd was restored), and whether any was.
func (w *Workflow) withAside(ctx context.Context, c runner.Conn, u state.Upgrade, snap kubeadm.Snapshot) (kubeadm.Snapshot, bool, error) {
	if _, ok := snap.Manifests["kube-apiserver"]; ok && len(snap.MissingControlPlane()) == 0 {
		return snap, false, nil // all in place (a stop moves every manifest aside)
	}
	tags, err := w.asideTags(ctx, c, u)
	if err != nil || len(tags) == 0 {
		return snap, false, err
	}
	snap.Manifests = maps.Clone(snap.Manifests)
	if snap.Manifests == nil {
		snap.Manifests = map[string]string{}
	}
	for comp, tag := range tags {
		if _, ok := snap.Manifests[comp]; !ok {
			snap.Manifests[comp] = tag
		}
	}
	return snap, true, nil
}

// abortPlan probes every controller and decides what abort restores on each: nothing on a
// controller no control-plane step of this upgrade ran on, nothing where the host is as that
// step found it. It refuses (nothing written) where it cannot restore without guessing. aside
// names the controllers whose manifests an interrupted etcd restore left aside (counted as in
// place: the restore puts them back).
func (w *Workflow) abortPlan(ctx context.Context, u state.Upgrade, hosts []state.Host, cs []*inventory.Host) (plan []restore, aside []string, err error) {
	rows := map[string]state.Host{}
	for _, h := range hosts {
		rows[h.Hostname] = h
	}
	for _, h := range cs {
		c, err := w.Runner.Conn(ctx, h)
		if err != nil {
			return nil, nil, fmt.Errorf("abort: look at %s before deciding what to restore: %w", h.Name, err)
		}
		snap, err := w.readProbe(ctx, c) // kubeadm's version too: it goes back where it moved
		if err != nil {
			return nil, nil, fmt.Errorf("abort: probe %s: %w", h.Name, err)
		}
		snap, moved, err := w.withAside(ctx, c, u, snap)
		if err != nil {
			return nil, nil, fmt.Errorf("abort: look for manifests aside on %s: %w", h.Name, err)
		}
		if moved {
			aside = append(aside, h.Name)
		}
		row := rows[h.Name]
		if !row.Backups.Recorded() {
			if err := untouched(u, row, snap); err != nil {
				return nil, nil, err
			}
			w.log().Info("abort: no control-plane step of this upgrade ran here, nothing to restore", "host", h.Name)
			continue
		}
		if len(differences(row.Backups, snap)) == 0 && !kubeadmMoved(u, snap) {
			w.log().Info("abort: the host is as the upgrade found it, nothing to restore", "host", h.Name)
			continue
		}
		dirs, kubeletDirs := madeSince(snap)
		b, _ := row.Backups.Add(dirs, kubeletDirs)
		plan = append(plan, restore{host: h, before: row.Backups, dirs: b.Manifests, kubeletDirs: b.KubeletConfig,
			etcdFrom: row.Backups.Tags["etcd"], etcdNow: snap.Manifests["etcd"], kubeadm: kubeadmMoved(u, snap)})
	}
	return w.withClusterConfig(ctx, u, hosts, cs, plan), aside, nil
}

// untouched checks a controller without a backups record: it is left alone only when its
// control plane is still at the upgrade's from version, whole. Anything else has moved without
// a record of the backup that holds what it was, and abort will not guess which folder does.
func untouched(u state.Upgrade, row state.Host, snap kubeadm.Snapshot) error {
	why := ""
	switch v := snap.ControlPlaneVersion(); {
	case row.TargetVersion == u.ToVersion || slices.Contains(u.Hops, row.TargetVersion): // any hop of it
		why = "a control-plane step of this upgrade ran there, but there is no record of the backups kubeadm made (a kupgrade older than this one ran it)"
	case len(snap.MissingControlPlane()) > 0:
		why = fmt.Sprintf("%s has no %s manifest although no control-plane step of this upgrade ran there", row.Hostname, strings.Join(snap.MissingControlPlane(), ", "))
	case v != "" && v != u.FromVersion:
		why = fmt.Sprintf("its control plane is at %s, not %s, although no control-plane step of this upgrade ran there (kubeadm run by hand?)", v, u.FromVersion)
	default:
		return nil
	}
	return state.WithNextSteps(fmt.Errorf("%w: abort cannot restore %s: %s; kupgrade restores only from the backups an upgrade recorded, never from the newest folder it finds",
		state.ErrRefused, row.Hostname, why),
		"; put its manifests in /etc/kubernetes/manifests back at "+u.FromVersion+" by hand (from the /etc/kubernetes/tmp/kubeadm-backup-manifests-* folder that holds them), then `%s` again",
		state.Next("upgrade", "abort"))
}

// differences lists how snap differs from what the first control-plane step found (before):
// each manifest's tag, and config.yaml's checksum. Empty: nothing to restore.
func differences(before state.Backups, snap kubeadm.Snapshot) []string {
	var out []string
	comps := slices.Sorted(func(yield func(string) bool) {
		for c := range before.Tags {
			if !yield(c) {
				return
			}
		}
	})
	for _, c := range comps {
		if got, ok := snap.Manifests[c]; !ok {
			out = append(out, fmt.Sprintf("%s.yaml is missing (want %s)", c, before.Tags[c]))
		} else if got != before.Tags[c] {
			out = append(out, fmt.Sprintf("%s at %s, want %s", c, got, before.Tags[c]))
		}
	}
	if before.ConfigSHA256 != "" && snap.ConfigSHA256 != before.ConfigSHA256 {
		out = append(out, fmt.Sprintf("/var/lib/kubelet/config.yaml has sha256 %.12s, want %.12s", snap.ConfigSHA256, before.ConfigSHA256))
	}
	return out
}

// restoreVars are the abort playbook's variables of each restored host, keyed by host name
// (the playbook reads its own with inventory_hostname); manifests is the folder it restores
// the manifests in (the aside folder while etcd is restored).
func restoreVars(plan []restore, manifests string) map[string]any {
	m := map[string]any{}
	for _, r := range plan {
		m[r.host.Name] = map[string]any{
			"manifests":    manifests,
			"tags":         tagLines(r.before.Tags),
			"dirs":         strings.Join(r.dirs, "\n"),
			"config_sha":   r.before.ConfigSHA256,
			"kubelet_dirs": strings.Join(r.kubeletDirs, "\n"),
			"kubeadm":      r.kubeadm,
		}
	}
	return m
}
