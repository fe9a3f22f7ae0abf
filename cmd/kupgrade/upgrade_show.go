package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
)

type upgradeShowCmd struct{}

func (c *upgradeShowCmd) Run(ctx context.Context, a *app) error {
	st, err := a.Reader(ctx)
	if err != nil {
		return err
	}
	cluster := a.cluster()
	u, err := st.Upgrade(ctx, cluster)
	if errors.Is(err, state.ErrNotFound) { // refused (exit 3), as the manual says; the report lists the clusters there are
		if a.json() {
			writeJSON(a.stdout, nil)
		}
		return fmt.Errorf("%w: no upgrade for cluster %q; next: `kupgrade upgrade plan VERSION`, then `kupgrade upgrade start VERSION`",
			state.ErrNotFound, cluster) // report adds the flags to the commands
	}
	if err != nil {
		return err
	}
	return a.showUpgrade(ctx, u)
}

type hostListCmd struct {
	Refresh bool `help:"Read the live versions over SSH and store them first."`
	Wide    bool `help:"Print the last failure whole instead of cutting it to fit the terminal."`
}

func (c *hostListCmd) Run(ctx context.Context, a *app) error {
	if c.Refresh { // writes the versions it reads, through the writer Reader then returns
		if err := a.refreshVersions(ctx); err != nil {
			return err
		}
	}
	st, err := a.Reader(ctx)
	if err != nil {
		return err
	}
	hosts, err := st.Hosts(ctx, a.cluster())
	if err != nil {
		return err
	}
	u, err := st.Upgrade(ctx, a.cluster())
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		return err
	}
	done := err == nil && ended(u.State)
	if a.json() {
		return writeJSON(a.stdout, newHostViews(hosts, done))
	}
	if len(hosts) == 0 {
		fmt.Fprintf(a.stdout, "no hosts recorded for cluster %q; they are recorded by `%s`%s\n", a.cluster(),
			a.command("kupgrade upgrade start VERSION"), a.otherClusters())
		return nil
	}
	writeHosts(a.stdout, hosts, cellWidth(c.Wide, 72), done)
	return nil
}

type upgradeFailedCmd struct {
	Force  bool   `help:"Fail it even though another kupgrade holds a live lease on it."`
	Reason string `help:"Why, for the event log." default:"failed by hand (kupgrade upgrade failed)"`
}

func (c *upgradeFailedCmd) Run(ctx context.Context, a *app) error {
	st, err := a.Store(ctx)
	if err != nil {
		return err
	}
	// Every host the operation left in flight (a kubelet batch has several) is cleared, so that
	// none stays in flight once the lease is gone.
	results, err := recovery.FailAll(ctx, st, recovery.Request{
		Cluster: a.cluster(), Actor: state.ActorCLI, Reason: c.Reason, Force: c.Force,
	})
	if err != nil {
		return err
	}
	if a.json() && len(results) == 1 {
		return a.printFail(results[0])
	}
	for _, res := range results {
		if err := a.printFail(res); err != nil {
			return err
		}
	}
	return nil
}

// printFail tells what the one failing path did.
func (a *app) printFail(res recovery.Result) error {
	if a.json() {
		return writeJSON(a.stdout, map[string]any{
			"from_state": res.FromState, "to_state": res.ToState, "host": nullable(res.Host),
			"cleared_host_status": nullable(string(res.HostStatus)), "noop": res.NoOp,
		})
	}
	if res.NoOp {
		fmt.Fprintf(a.stdout, "state is already %s and no host is in flight: nothing to do\n", res.FromState)
		return nil
	}
	fmt.Fprintf(a.stdout, "state: %s -> %s\n", res.FromState, res.ToState)
	if res.Host != state.WholeCluster {
		fmt.Fprintf(a.stdout, "host %s: status %s cleared\n", res.Host, res.HostStatus)
	}
	if next := state.RetryCommand(res.ToState, res.Host); next != "" {
		fmt.Fprintf(a.stdout, "retry with: %s\n", a.command(next))
	}
	return nil
}

type upgradeDeleteCmd struct {
	Yes bool `short:"y" help:"Do not ask for confirmation on a terminal."`
}

func (c *upgradeDeleteCmd) Run(ctx context.Context, a *app) error {
	st, err := a.Store(ctx)
	if err != nil {
		return err
	}
	u, err := st.Upgrade(ctx, a.cluster())
	if err != nil {
		return err
	}
	l, err := st.Lease(ctx, u.Cluster)
	if err != nil {
		return err
	}
	if err := state.CheckLease(u, l, st.Now()); err != nil {
		return err
	}
	if err := state.CheckDelete(u); err != nil {
		return err
	}
	if err := a.confirmUpgrade(ctx, st, "upgrade delete removes it (its history stays).", c.Yes); err != nil {
		return err
	}
	if err := st.DeleteUpgrade(ctx, u.Cluster, u.State, state.ActorCLI, "deleted by kupgrade upgrade delete"); err != nil {
		return err
	}
	a.removeUpgradeLogs(u.Cluster, u.UUID) // kept until now, beside the database
	fmt.Fprintf(a.stdout, "upgrade %s of cluster %s deleted (state was %s), its run logs with it\n", u.UUID, u.Cluster, u.State)
	return nil
}

type versionCmd struct{}

func (c *versionCmd) Run(a *app) error {
	if a.json() {
		return writeJSON(a.stdout, map[string]string{"version": version, "commit": commit, "go": runtime.Version()})
	}
	fmt.Fprintln(a.stdout, versionLine())
	return nil
}
