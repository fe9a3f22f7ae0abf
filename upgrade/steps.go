package upgrade

import (
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/state"
)

func (w *Workflow) vars(u state.Upgrade, extra map[string]any) map[string]any {
	v := map[string]any{
		playbooks.VarToVersion:      u.Target(),
		playbooks.VarFromVersion:    u.FromVersion,
		playbooks.VarCluster:        u.Cluster,
		playbooks.VarUpgrade:        u.UUID,
		playbooks.VarCordonMark:     w.cordonMark(u),
		playbooks.VarKubeadmTimeout: w.kubeadmTimeout().String(),
		playbooks.VarDrainTimeout:   w.drainTimeout().String(),
		playbooks.VarImageVersions:  imageVersions(u),
	}
	for k, x := range extra {
		v[k] = x
	}
	return v
}

// imageVersions are the versions the download-images step readies: the running hop's and every
// later hop's, so that the first hop's download finds a later hop's missing images before the
// control plane moves (kubeadm lists and pulls the images of a later version too).
func imageVersions(u state.Upgrade) []any {
	vs := []any{u.Target()}
	if u.Hop >= 0 && u.Hop < len(u.Hops) {
		vs = vs[:0]
		for _, h := range u.Hops[u.Hop:] {
			vs = append(vs, h)
		}
	}
	return vs
}
