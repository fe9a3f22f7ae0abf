package recovery

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/internal/shellword"
	"github.com/kupgrade/kupgrade/state"
)

// Placeholders a printed command holds where only the operator knows the path: pasted as they
// are, kupgrade cannot read them and runs nothing (exit 2), where any real inventory at hand
// could be another cluster's.
const (
	FleetInventoriesWord = "FLEET_INVENTORIES"
	ClusterInventoryWord = "CLUSTER_INVENTORY"
)

// Where is what a page or table over many clusters knows of the place a command is pasted:
// the global flags it was started with and the cluster its inventory names.
type Where struct {
	Flags            []string // --db, --db-file and -i as the watcher got them (pairs: flag, value)
	InventoryCluster string   // the kupgrade_cluster of those -i, "" when they name none
}

// Command completes cmd, a command of one cluster, so that it acts on that cluster's hosts only.
// A member of a fleet goes on with `kupgrade fleet run` over the fleet's inventories; another
// cluster than the inventory's is given its own inventory, never this one with --cluster; the
// inventory's own cluster, or any cluster when the inventory names none, keeps the flags.
func (w Where) Command(cmd, cluster string, member *state.FleetRow) string {
	switch {
	case cmd == "":
		return ""
	case member != nil:
		return FleetRun(*member, w.dbFlags())
	case w.InventoryCluster != "" && w.InventoryCluster != cluster:
		parts := append(append([]string{cmd}, w.dbFlags()...), "-i", ClusterInventoryWord)
		return strings.Join(append(parts, "--cluster", shellword.Quote(cluster)), " ")
	}
	return WithFlags(cmd, shellword.Quote(cluster), w.Flags)
}

// FleetRun is the command that goes on with a fleet's cluster: the fleet's runner takes it up
// again (a failed cluster is made pending when a run joins the fleet), with the fleet's own
// inventories.
func FleetRun(r state.FleetRow, flags []string) string {
	parts := append([]string{"kupgrade fleet run --fleet", shellword.Quote(r.Fleet), "--to", shellword.Quote(r.ToVersion)}, flags...)
	return strings.Join(append(parts, "--inventories", FleetInventoriesWord), " ")
}

// dbFlags is Flags without -i and --inventory.
func (w Where) dbFlags() []string {
	var out []string
	for i := 0; i < len(w.Flags); i++ {
		if (w.Flags[i] == "-i" || w.Flags[i] == "--inventory") && i+1 < len(w.Flags) {
			i++
			continue
		}
		out = append(out, w.Flags[i])
	}
	return out
}

// FleetReader is the store's view of the fleets (state.FleetStore.FleetRows).
type FleetReader interface {
	FleetRows(ctx context.Context, fleet string) ([]state.FleetRow, error)
	Now() time.Time
}

// FleetMember is cluster's fleet row in st, nil when the cluster is in no fleet.
func FleetMember(ctx context.Context, st FleetReader, cluster string) (*state.FleetRow, error) {
	rows, err := st.FleetRows(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("read fleets: %w", err)
	}
	if r, ok := FleetMembers(rows)[cluster]; ok {
		return &r, nil
	}
	return nil, nil
}

// FleetMembers maps each cluster of rows to its fleet row.
func FleetMembers(rows []state.FleetRow) map[string]state.FleetRow {
	m := make(map[string]state.FleetRow, len(rows))
	for _, r := range rows {
		m[r.Cluster] = r
	}
	return m
}
