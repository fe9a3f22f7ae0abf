package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// isTerminal reports whether r is a terminal a person types at. Tests replace it: a test's
// stdin is never a terminal, and a script's never asks.
var isTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// confirm asks, on a terminal, whether to go on with what says (one line, as kubeadm's
// "[upgrade/confirm] Are you sure you want to proceed?"). yes (-y, --yes) and a stdin that is
// not a terminal never ask. Any answer but y or yes changes nothing: refused, exit 3.
func (a *app) confirm(what string, yes bool) error {
	if yes || !isTerminal(a.stdin) {
		return nil
	}
	fmt.Fprintf(a.stderr, "%s\nProceed? [y/N] ", what)
	line, _ := bufio.NewReader(a.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return fmt.Errorf("%w: not confirmed, nothing was changed (pass -y or --yes to go on without the question)", state.ErrRefused)
}

// confirmUpgrade asks before a command that changes the recorded upgrade of the cluster: what
// it is now, and what the command does to it. No upgrade: nothing to ask, the command says so.
func (a *app) confirmUpgrade(ctx context.Context, st upgradeReader, does string, yes bool) error {
	if yes || !isTerminal(a.stdin) {
		return nil
	}
	u, err := st.Upgrade(ctx, a.cluster())
	if err != nil {
		return nil
	}
	hops := ""
	if line := u.HopsLine(); line != "" {
		hops = ", in hops: " + line
	}
	return a.confirm(fmt.Sprintf("cluster %s: upgrade %s -> %s%s, state %s.\n%s", u.Cluster, u.FromVersion, u.ToVersion, hops, u.State, does), false)
}

// confirmRun asks before `upgrade run`: the upgrade, where it stops, and the steps it runs one
// line each (KubeOne's way) with the overrides in force, or the next command when the plan
// cannot be read.
func (a *app) confirmRun(ctx context.Context, w *upgrade.Workflow, until string, yes bool) error {
	if yes || !isTerminal(a.stdin) {
		return nil
	}
	next, _, err := w.Next(ctx)
	if err != nil || next == "" || next == "kupgrade upgrade delete" {
		return nil // nothing to run: the run itself says so
	}
	stop := "every remaining step, kubeadm included, to the end"
	if until != "" {
		stop = "every step until the state is " + until
	}
	does := fmt.Sprintf("upgrade run runs %s; next: %s.", stop, a.command(next))
	if lines := a.runSteps(ctx, w, until); len(lines) > 0 {
		does = fmt.Sprintf("upgrade run runs %s:\n  %s", stop, strings.Join(lines, "\n  "))
	}
	return a.confirmUpgrade(ctx, w.Store, does, false)
}

// upgradeReader reads a cluster's upgrade: what every store has.
type upgradeReader interface {
	Upgrade(ctx context.Context, cluster string) (state.Upgrade, error)
}
