package upgrade

import (
	"context"
	"strings"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/state"
)

// clusterConfigScript prints kubeadm-config's ClusterConfiguration kubernetesVersion, as the
// next `kubeadm upgrade plan` reads it.
const clusterConfigScript = `kubectl --kubeconfig /etc/kubernetes/admin.conf -n kube-system get configmap kubeadm-config -o 'jsonpath={.data.ClusterConfiguration}' | sed -n 's/^kubernetesVersion: *//p'`

// kubeadmMoved reports whether kubeadm on a controller a control-plane step of this upgrade ran
// on (it installs kubeadm at the target) is off the from version now.
func kubeadmMoved(u state.Upgrade, snap kubeadm.Snapshot) bool {
	v := snap.Installed.Kubeadm
	return v != "" && v != u.FromVersion
}

// upgradeVersions are the versions this upgrade moves the cluster to (each hop's, the target
// last), space-separated: what kubeadm upgrade apply may have written into kubeadm-config.
func upgradeVersions(u state.Upgrade) string {
	if len(u.Hops) == 0 {
		return u.ToVersion
	}
	return strings.Join(u.Hops, " ")
}

// clusterConfigVar is the abort playbook's abort_cluster_config: this upgrade's versions once a
// control-plane step of it ran (the first one ran kubeadm upgrade apply), else "" (kubeadm-config
// is left alone).
func clusterConfigVar(u state.Upgrade, rows []state.Host) string {
	for _, r := range rows {
		if r.Backups.Recorded() && r.Personality == state.Controller {
			return upgradeVersions(u)
		}
	}
	return ""
}

// withClusterConfig adds to an empty plan the first controller this upgrade recorded, restoring
// nothing there, when kubeadm-config still holds a version of this upgrade (an abort that
// stopped after the manifests and kubeadm went back): the playbook puts kubernetesVersion back
// from it. It asks the API server on the first controller; when that fails, the plan stays.
func (w *Workflow) withClusterConfig(ctx context.Context, u state.Upgrade, rows []state.Host, cs []*inventory.Host, plan []restore) []restore {
	moved := clusterConfigVar(u, rows)
	if len(plan) > 0 || moved == "" {
		return plan
	}
	out, err := w.execScript(ctx, cs[0], "Read the kubernetesVersion of kubeadm-config", clusterConfigScript)
	if v := strings.TrimSpace(out); err != nil || v == "" || !strings.Contains(" "+moved+" ", " "+v+" ") {
		return plan
	}
	for _, h := range cs {
		for _, r := range rows {
			if r.Hostname == h.Name && r.Backups.Recorded() {
				return []restore{{host: h, before: r.Backups}}
			}
		}
	}
	return plan
}
