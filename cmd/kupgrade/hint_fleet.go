package main

import (
	"context"

	"github.com/kupgrade/kupgrade/recovery"
)

// clusterCommand renders cmd, the next command of this command's cluster, as command does; for a
// member of a fleet whose inventory is not the one at hand, it is `kupgrade fleet run` over the
// fleet's inventories instead: a command of that cluster typed beside this inventory would act
// on this inventory's hosts.
func (a *app) clusterCommand(ctx context.Context, st recovery.FleetReader, cmd string) string {
	if cmd == "" {
		return ""
	}
	cluster := a.cluster()
	if inv, err := a.Inventory(); err == nil && inv.Cluster() == cluster {
		return a.command(cmd)
	}
	m, err := recovery.FleetMember(ctx, st, cluster)
	if err != nil || m == nil {
		return a.command(cmd)
	}
	return a.commandWith(recovery.FleetRun(*m, nil), []string{"db", "db-file"})
}
