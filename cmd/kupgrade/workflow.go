package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/upgrade"
	"golang.org/x/term"
)

// dialer adapts *sshconn.Dialer to runner.Dialer.
type dialer struct{ d *sshconn.Dialer }

func (d dialer) Dial(ctx context.Context, h *inventory.Host) (runner.Conn, error) {
	return d.d.Dial(ctx, h)
}

// knownHosts is --known-hosts, else the inventory's kupgrade_known_hosts, else "": then a host's
// ssh_config (UserKnownHostsFile) or ~/.ssh/known_hosts applies.
func (a *app) knownHosts(inv *inventory.Inventory) string {
	if a.g.KnownHosts != "" {
		return a.g.KnownHosts
	}
	if inv != nil {
		return inv.KnownHosts()
	}
	return ""
}

// reporter prints events for people (a line per task result) or as JSON Lines. One per process:
// the runner and the workflow share it, and with it the progress bar's line.
func (a *app) reporter() runner.Reporter {
	if a.rep == nil {
		a.startRunLog()
		a.rep = a.logged(a.newReporter())
	}
	return a.rep
}

func (a *app) newReporter() runner.Reporter {
	if a.json() {
		return runner.NewJSONReporter(a.stdout)
	}
	f, ok := a.rawStdout.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return runner.NewTextReporter(a.rawStdout, false)
	}
	a.live = true
	return runner.NewLiveReporter(a.rawStdout, runner.TextOptions{TTY: true, Color: colour(), Width: func() int {
		w, _, err := term.GetSize(int(f.Fd()))
		if err != nil {
			return 0
		}
		return w
	}})
}

// Runner builds the runner over SSH for the inventory, once.
func (a *app) Runner(inv *inventory.Inventory, forks int) *runner.Runner {
	if a.run != nil {
		return a.run
	}
	d := &sshconn.Dialer{
		KnownHosts: a.knownHosts(inv),
		AcceptNew:  a.g.AcceptNewHostKeys,
		Agent:      true,
		Passphrase: sshconn.PromptPassphrase,
		Log:        a.log,
	}
	// the built-in modules and kubeadm's (kubelet_config) are registered here: the runner knows nothing of kubeadm.
	a.run = runner.New(dialer{d}, runner.Options{Forks: forks, Reporter: a.reporter(), Modules: kubeadm.Modules()})
	return a.run
}

// workflow opens what the upgrade workflow needs: the store, the inventory and the runner.
func (a *app) workflow(ctx context.Context) (*upgrade.Workflow, error) {
	inv, err := a.Inventory() // bad input first: a broken inventory must not create a database
	if err != nil {
		return nil, err
	}
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	return &upgrade.Workflow{
		Store: st, Runner: a.Runner(inv, 0), Inventory: inv, Cluster: a.cluster(),
		LeaseTTL: a.g.LeaseTTL, KubeadmTimeout: a.g.KubeadmTimeout, DrainTimeout: a.g.DrainTimeout, VerifyTimeout: a.g.VerifyTimeout, FenceWait: a.g.FenceWait, Reporter: a.reporter(), Log: a.log,
		Snapshots: a.snapshots(), Database: a.dbIdentity(),
	}, nil
}

// snapshots is where the etcd snapshots go: --snapshot-dir, else etcd-snapshots beside the
// default database (the state folder), kept for --keep-snapshots upgrades.
func (a *app) snapshots() upgrade.SnapshotOptions {
	dir := a.g.SnapshotDir
	if dir == "" {
		dir = filepath.Join(filepath.Dir(defaultDB()), "etcd-snapshots")
	}
	return upgrade.SnapshotOptions{Dir: dir, Keep: a.g.KeepSnapshots}
}

func (a *app) refreshVersions(ctx context.Context) error {
	w, err := a.workflow(ctx)
	if err != nil {
		return err
	}
	return w.Refresh(ctx)
}
