package upgrade

import (
	"context"
	"github.com/kupgrade/kupgrade/state"
	"regexp"
	"strings"
)

// clusterUIDScript prints the UID of the cluster's kube-system namespace: made by kubeadm init,
// kept for the cluster's life, the same whatever an inventory calls the cluster.
const clusterUIDScript = `kubectl --kubeconfig /etc/kubernetes/admin.conf --request-timeout=10s get namespace kube-system -o 'jsonpath={.metadata.uid}'`

// uidShape is what a namespace's UID looks like; anything else is not taken for one.
var uidShape = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z-]{7,63}$`)

// clusterUID is the cluster's own identity, for the host fence (runner.Fence.ClusterUID): the
// kube-system namespace's UID, read with kubectl on the first controller that answers, once per
// Workflow. When no controller answers (the API server down during an abort) it is "", and the
// fence tells the cluster by its name alone, which still refuses another live upgrade of that
// name, and the first read of a later step tries again.
func (w *Workflow) clusterUID(ctx context.Context) string {
	if w.uid != "" {
		return w.uid
	}
	for _, h := range w.Inventory.Controllers() {
		out, err := w.execScript(ctx, h, "Read the cluster's identity (kube-system's UID)", clusterUIDScript)
		if uid := strings.TrimSpace(out); err == nil && uidShape.MatchString(uid) {
			w.uid = uid
			return uid
		}
		w.log().Warn("the cluster's identity could not be read: the host fence tells it by its name", "host", h.Name, "err", err)
	}
	return ""
}

// cordonMark is the value of the kupgrade.io/cordoned mark this upgrade's drains put on a node:
// whose it is, so that no other upgrade's kubelet step takes it over (playbooks.VarCordonMark).
// The id stands between blanks, as the playbook matches it.
func (w *Workflow) cordonMark(u state.Upgrade) string {
	db := w.Database
	if db == "" {
		db = "unknown"
	}
	return "upgrade " + u.UUID + " by " + w.owner() + " with the database " + db
}
