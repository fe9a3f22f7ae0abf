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
		playbooks.VarKubeadmTimeout: w.kubeadmTimeout().String(),
		playbooks.VarDrainTimeout:   w.drainTimeout().String(),
	}
	for k, x := range extra {
		v[k] = x
	}
	return v
}
