package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/kupgrade/kupgrade/upgrade"
)

// upgradeVersionsCmd is `upgrade versions` (StarlingX's kube-version-list): the versions the
// inventory's hosts run and can go to. kupgrade has no catalogue of releases (StarlingX ships
// one), so each row says where it comes from: the hosts' manifests and kubelets, the kubeadm
// installed on them, or kubeadm's rule (one minor at a time, no downgrade): upgrade.VersionList.
type upgradeVersionsCmd struct{}

func (c *upgradeVersionsCmd) Run(ctx context.Context, a *app) error {
	inv, err := a.Inventory()
	if err != nil {
		return err
	}
	w := &upgrade.Workflow{Runner: a.Runner(inv, 0), Inventory: inv, Cluster: a.cluster(), Log: a.log}
	vs, err := w.ReadVersions(ctx, inv.Nodes(), true)
	if err != nil {
		return err
	}
	for _, h := range inv.Nodes() {
		if vs[h.Name].Kubeadm == "" {
			a.log.Warn("kubeadm version unreadable: the host's kubeadm does not count", "host", h.Name)
		}
	}
	rows, err := upgrade.VersionList(inv.Controllers(), vs)
	if err != nil {
		return err
	}
	if a.json() {
		return writeJSON(a.stdout, rows)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tSTATE\tHOSTS\tSOURCE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Version, r.State, dash(strings.Join(r.Hosts, ",")), r.Source)
	}
	return tw.Flush()
}
