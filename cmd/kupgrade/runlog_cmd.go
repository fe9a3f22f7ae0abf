package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/kupgrade/kupgrade/state"
)

type upgradeLogsCmd struct {
	Last bool `help:"Print the newest run log of the upgrade instead of listing them."`
}

// Run lists the run logs of the cluster's upgrade, oldest first, or prints the newest (--last):
// each holds every task of one kupgrade command with its whole output, kubeadm's included.
func (c *upgradeLogsCmd) Run(ctx context.Context, a *app) error {
	st, err := a.Reader(ctx)
	if err != nil {
		return err
	}
	u, err := st.Upgrade(ctx, a.cluster())
	if err != nil && !errors.Is(err, state.ErrBadRow) {
		return err
	}
	dir := upgradeLogDir(a.runLogRoot(), u.Cluster, u.UUID)
	names, _ := filepath.Glob(filepath.Join(dir, "run-*.log"))
	sort.Strings(names) // by time: run-TIME-PID.log
	if len(names) == 0 {
		return fmt.Errorf("%w: no run log of upgrade %s of cluster %s in %s (a command that ran no task leaves none)",
			state.ErrNotFound, u.UUID, u.Cluster, dir)
	}
	if c.Last {
		b, err := os.ReadFile(names[len(names)-1])
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(b)
		return err
	}
	if a.json() {
		return writeJSON(a.stdout, names)
	}
	for _, n := range names {
		fmt.Fprintln(a.stdout, n)
	}
	return nil
}
