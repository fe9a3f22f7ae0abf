package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
)

type playCmd struct {
	Playbook  string   `arg:"" type:"path" help:"Playbook file (YAML)."`
	Limit     string   `short:"l" help:"Only hosts matching this pattern (group, host, a:b, a:!b, a:&b, globs)."`
	Forks     int      `short:"f" default:"50" help:"Hosts worked on at the same time."`
	Check     bool     `short:"C" help:"Report what would change without changing anything."`
	Diff      bool     `short:"D" help:"Show what file-changing tasks change, as a unified diff (also with --check); a task's diff keyword overrides it."`
	Conn      string   `short:"c" name:"connection" placeholder:"local|ssh" help:"How to reach hosts whose play and inventory name no connection: ssh (the default) or local (this machine)."`
	ListHosts bool     `name:"list-hosts" help:"List each play's hosts and run nothing."`
	ListTasks bool     `name:"list-tasks" help:"List each play's tasks (as --tags and --skip-tags select them) and run nothing."`
	Tags      []string `short:"t" sep:"," help:"Only tasks with these tags."`
	SkipTags  []string `name:"skip-tags" sep:"," help:"Skip tasks with these tags."`
	ExtraVars []string `short:"e" name:"extra-vars" sep:"none" help:"KEY=VALUE ... (each value read as YAML), a JSON or YAML mapping, or @FILE (YAML or JSON); repeatable, the last wins."`
}

func (c *playCmd) Run(ctx context.Context, a *app) error {
	pb, err := playbooks.Load(c.Playbook)
	if err != nil {
		return err
	}
	if err := defaultConnection(pb, c.Conn); err != nil {
		return err
	}
	for _, w := range pb.Warnings {
		if a.json() { // every line of -o json is JSON, diagnostics too
			a.log.Warn(strings.TrimPrefix(w, "[WARNING]: "))
			continue
		}
		fmt.Fprintln(a.stderr, w)
	}
	inv, err := a.Inventory()
	if err != nil {
		return err
	}
	extra, err := parseExtraVars(c.ExtraVars)
	if err != nil {
		return err
	}
	po := runner.PlayOptions{Limit: c.Limit, Check: c.Check, Diff: c.Diff, Tags: c.Tags, SkipTags: c.SkipTags, ExtraVars: extra}
	if c.ListHosts || c.ListTasks {
		return runner.ListPlays(a.stdout, pb, inv, po, c.ListHosts, c.ListTasks)
	}
	recap, err := a.Runner(inv, c.Forks).Play(ctx, pb, inv, po)
	return playOutcome(recap, err)
}

// defaultConnection applies -c/--connection to the plays that name no connection, as
// ansible-playbook's -c is the default of the play's connection keyword.
func defaultConnection(pb *playbooks.Playbook, conn string) error {
	switch conn {
	case "", "ssh", "smart":
		return nil
	case "local":
		for _, p := range pb.Plays {
			if p.Connection == "" {
				p.Connection = conn
			}
		}
		return nil
	}
	return fault.Mark(fmt.Errorf("--connection %q is not supported by kupgrade: it connects with ssh (the default) or local", conn), fault.ErrBadInput)
}

// playOutcome maps a play's end to docs/cli.md's classes: bad input and an interruption keep theirs;
// any failed task is exit 1, even when other hosts were unreachable; hosts that were only
// unreachable are exit 5.
func playOutcome(recap *runner.Recap, err error) error {
	if err == nil || recap == nil || errors.Is(err, fault.ErrBadInput) || errors.Is(err, context.Canceled) {
		return err
	}
	failed := 0
	for _, h := range recap.Hosts {
		failed += h.Failed
	}
	if failed > 0 {
		return fmt.Errorf("%d task(s) failed: %w", failed, errFailedPlay{err})
	}
	return err
}

// errFailedPlay hides the unreachable class of some hosts when tasks failed on others (exit 1).
type errFailedPlay struct{ err error }

func (e errFailedPlay) Error() string { return e.err.Error() }

type inventoryCmd struct {
	List inventoryListCmd `cmd:"" help:"The resolved hosts, groups and variables."`
}

type inventoryListCmd struct {
	Limit string `short:"l" help:"Only hosts matching this pattern."`
}

func (c *inventoryListCmd) Run(a *app) error {
	inv, err := a.Inventory()
	if err != nil {
		return err
	}
	hosts, err := inv.Select(c.Limit)
	if err != nil {
		return err
	}
	if a.json() {
		return writeJSON(a.stdout, inventory.JSON(hosts))
	}
	return inventory.WriteTable(a.stdout, hosts)
}
