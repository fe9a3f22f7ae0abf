package main

import (
	"os"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/state"
	"github.com/posener/complete"
	"github.com/willabides/kongplete"
)

// stateNames are the upgrade's states in order: --help lists them (${states}) and completion
// offers them for --until.
func stateNames() []string {
	var names []string
	for _, s := range state.AllStates() {
		names = append(names, string(s))
	}
	return names
}

// listStates ends the help of every --until with the states it takes, in order.
func listStates(app *kong.Application) {
	_ = kong.Visit(app, func(n kong.Visitable, next kong.Next) error {
		if f, ok := n.(*kong.Flag); ok && f.Name == "until" {
			f.Help = strings.TrimSuffix(f.Help, ".") + ": " + strings.Join(stateNames(), ", ") + "."
		}
		return next(nil)
	})
}

// listHosts ends the help of every host argument (predictor:"host") with the hosts of the
// inventory the command line names (as completion reads it), when one loads. The inventory is
// read only when help is asked for (-h, --help).
func listHosts(app *kong.Application, args []string) {
	if !slices.Contains(args, "-h") && !slices.Contains(args, "--help") {
		return
	}
	hosts := inventoryHosts(typedInventories(args))
	if len(hosts) == 0 {
		return
	}
	_ = kong.Visit(app, func(n kong.Visitable, next kong.Next) error {
		if v, ok := n.(*kong.Value); ok && v.Tag != nil && v.Tag.Get("predictor") == "host" {
			v.Help = strings.TrimSuffix(v.Help, ".") + "; the inventory's: " + strings.Join(hosts, ", ") + "."
		}
		return next(nil)
	})
}

// predictors complete states (predictor:"state") and the inventory's host names
// (predictor:"host"), read from the -i typed so far on the whole line (the predictor is given only
// the words after the command), else KUPGRADE_INVENTORY or inventory.yml.
func predictors() kongplete.Option {
	return kongplete.WithPredictors(map[string]complete.Predictor{
		"state": complete.PredictSet(stateNames()...),
		"host": complete.PredictFunc(func(complete.Args) []string {
			return inventoryHosts(typedInventories(strings.Fields(os.Getenv("COMP_LINE"))))
		}),
	})
}

// typedInventories are the inventories a command line names with -i/--inventory, else the
// environment's or the default.
func typedInventories(args []string) []string {
	var paths []string
	for i, a := range args {
		switch {
		case (a == "-i" || a == "--inventory") && i+1 < len(args):
			paths = append(paths, args[i+1])
		case strings.HasPrefix(a, "--inventory="):
			paths = append(paths, strings.TrimPrefix(a, "--inventory="))
		}
	}
	if len(paths) == 0 {
		if env := os.Getenv("KUPGRADE_INVENTORY"); env != "" {
			return []string{env}
		}
		return []string{"inventory.yml"}
	}
	return paths
}

// inventoryHosts lists the hosts of the inventories, sorted; none when they do not load.
func inventoryHosts(paths []string) []string {
	inv, err := inventory.LoadAll(paths...)
	if err != nil {
		return nil
	}
	hosts, err := inv.Select("all")
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(hosts))
	for _, h := range hosts {
		names = append(names, h.Name)
	}
	slices.Sort(names)
	return names
}

// untilState is the value of a --until: a state of an upgrade, checked as the command line is
// read, before any database or inventory is opened, so that a typo is answered with the state
// meant (exit 2) rather than with whatever opening them says first.
type untilState string

// Decode reads the state and refuses one that is not a state, naming the nearest.
func (u *untilState) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("state", &s); err != nil {
		return err
	}
	if st := state.State(s); !st.Valid() {
		return state.UnknownState("--until", st)
	}
	*u = untilState(s)
	return nil
}
