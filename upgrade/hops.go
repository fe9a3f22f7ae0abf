package upgrade

import (
	"fmt"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/state"
)

// varLabVersions is the lab's name for state.VarVersions, read when the inventory has no
// kupgrade_versions.
const varLabVersions = "kupgrade_lab_versions"

// Hops checks the version step from from to to as `upgrade start` does and returns the hops
// the upgrade walks (nil for one): through each minor in between at the newest release the
// inventory offers (kupgrade_versions), then to; each hop checked as one minor. force skips the
// checks and plans no hops, as --ignore-version-checks always did.
func Hops(inv *inventory.Inventory, from, to state.Version, force bool) ([]string, error) {
	if force {
		return nil, state.CheckVersionStep(from, to, true)
	}
	avail, err := offered(inv)
	if err != nil {
		return nil, err
	}
	hops, err := state.PlanHops(from, to, avail)
	if err != nil || hops == nil {
		return nil, firstErr(err, state.CheckVersionStep(from, to, false))
	}
	prev := from
	for _, h := range hops {
		v, _ := state.ParseVersion(h)
		if err := state.CheckVersionStep(prev, v, false); err != nil {
			return nil, fmt.Errorf("hop %s -> %s: %w", prev, v, err)
		}
		prev = v
	}
	return hops, nil
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// offered reads the releases the inventory lists (kupgrade_versions, else kupgrade_lab_versions),
// nil when it lists none; an entry that is not a version is bad input naming the variable.
func offered(inv *inventory.Inventory) ([]state.Version, error) {
	if inv == nil {
		return nil, nil
	}
	for _, name := range []string{state.VarVersions, varLabVersions} {
		for _, h := range inv.Hosts {
			list, ok := h.Vars[name].([]any)
			if !ok {
				continue
			}
			out := make([]state.Version, 0, len(list))
			for i, x := range list {
				v, err := state.ParseVersion(fmt.Sprint(x))
				if err != nil {
					return nil, fmt.Errorf("inventory %s: %s[%d] on host %s: %w", inv.Path, name, i, h.Name, err)
				}
				out = append(out, v)
			}
			return out, nil
		}
	}
	return nil, nil
}
