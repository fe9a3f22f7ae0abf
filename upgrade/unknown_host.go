package upgrade

import (
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/internal/typo"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/state"
)

// UnknownHost is the error for a host name the inventory does not have: bad input (exit 2), with
// the nearest name when it looks like a typo, else the names there are.
func UnknownHost(name string, inv *inventory.Inventory) error {
	names := make([]string, 0, len(inv.Hosts))
	for _, h := range inv.Hosts {
		names = append(names, h.Name)
	}
	hint := "its hosts are " + strings.Join(names, ", ")
	if c := typo.Closest(name, names); c != "" {
		hint = fmt.Sprintf("did you mean %q?", c)
	}
	return fmt.Errorf("host %q is not in inventory %s; %s: %w", name, inv.Path, hint, state.ErrBadInput)
}
