package main

import (
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/state"
)

// clusterAgrees refuses a --cluster (or KUPGRADE_CLUSTER) that names another cluster than the
// inventory's kupgrade_cluster: the command would act on one cluster's hosts under the other
// cluster's upgrade (kubeadm on the wrong controller). An inventory that names no cluster, or
// cannot be read (explicitInventory judges that), leaves --cluster as it is; the fleet's
// commands read their own inventories.
func (a *app) clusterAgrees(command string) error {
	if !clusterCommand(command) {
		return nil
	}
	if err := a.clusterNameValid(); err != nil || a.g.Cluster == "" {
		return err
	}
	inv, err := a.Inventory()
	if err != nil || inv.Cluster() == "" || inv.Cluster() == a.g.Cluster {
		return nil
	}
	from := "KUPGRADE_CLUSTER=" + a.g.Cluster
	if a.given["cluster"] {
		from = "--cluster " + a.g.Cluster
	}
	paths := make([]string, len(a.g.Inventory))
	for i, p := range a.g.Inventory {
		paths[i] = relPath(p)
	}
	return fmt.Errorf("%s disagrees with the inventory %s, whose kupgrade_cluster is %s: kupgrade would act on %s's hosts under %s's upgrade; "+
		"give -i the inventory of cluster %s (a fleet member's: run it with `kupgrade fleet run`), or drop %s to work on %s: %w",
		from, strings.Join(paths, ", "), inv.Cluster(), inv.Cluster(), a.g.Cluster, a.g.Cluster, strings.Fields(from)[0], inv.Cluster(), state.ErrBadInput)
}

// clusterNameValid refuses a --cluster (`--cluster ""` typed included) or KUPGRADE_CLUSTER that
// cannot name a cluster (inventory.CheckClusterName), naming where it came from; the inventory's
// kupgrade_cluster is checked as the inventory loads.
func (a *app) clusterNameValid() error {
	if a.g.Cluster == "" && !a.given["cluster"] {
		return nil
	}
	err := inventory.CheckClusterName(a.g.Cluster)
	if err == nil {
		return nil
	}
	from := "KUPGRADE_CLUSTER"
	if a.given["cluster"] {
		from = "--cluster"
	}
	return fmt.Errorf("%s: %v; %s, or drop %s (then the inventory's kupgrade_cluster names it, else it is \"default\"): %w",
		from, err, inventory.ClusterNameFix, from, state.ErrBadInput)
}

// clusterCommand says whether command works on one cluster: not the fleet's (their inventories
// name their clusters), nor those that print what the binary knows.
func clusterCommand(command string) bool {
	first, _, _ := strings.Cut(command, " ")
	switch first {
	case "fleet", "version", "completion", "man":
		return false
	}
	return true
}
