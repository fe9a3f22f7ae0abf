package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/kupgrade/kupgrade/internal/typo"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// errStartForce refuses `upgrade start --force`: the flag used to allow version jumps, while
// StarlingX operators type it to ignore alarms (kupgrade reads none). Guessing either way would
// be a silent wrong answer.
var errStartForce = fmt.Errorf("upgrade start: --force (-f) is ambiguous: in StarlingX it ignores alarms, which kupgrade does not read; "+
	"to allow a downgrade, a jump of more than one minor version or controllers that disagree, pass --ignore-version-checks: %w", state.ErrBadInput)

// hostArg returns the host name arg stands for: arg itself when the inventory has a host of that
// name, else, when arg is a number, the host with that id in `host list` (StarlingX's
// <hostname or id>). Anything else is returned as is for the workflow to refuse by name.
func (a *app) hostArg(ctx context.Context, arg string) (string, error) {
	inv, invErr := a.Inventory()
	if invErr == nil {
		if _, ok := inv.Host(arg); ok {
			return arg, nil
		}
	}
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil {
		if invErr == nil {
			if near := typo.Closest(arg, inventoryHosts(a.g.Inventory)); near != "" {
				return "", upgrade.UnknownHost(arg, inv)
			}
		}
		return arg, nil
	}
	st, err := a.Reader(ctx)
	if err != nil {
		return "", err
	}
	hosts, err := st.Hosts(ctx, a.cluster())
	if err != nil {
		return "", err
	}
	for _, h := range hosts {
		if h.ID == id {
			return h.Hostname, nil
		}
	}
	return "", fmt.Errorf("no host has id %d in cluster %q (`kupgrade host list` shows the ids): %w", id, a.cluster(), state.ErrBadInput)
}
