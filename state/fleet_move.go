package state

import (
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/internal/typo"
)

// OtherFleets refuses (ErrRefused, exit 3) to join fleet with members that another fleet holds
// and that may not move (FleetMember.Move): a mistyped --fleet must not move a whole fleet into
// a new one. fleetOf says which fleet a cluster is recorded in, if any.
func OtherFleets(fleet string, members []FleetMember, fleetOf func(cluster string) (string, bool)) error {
	var names []string
	others := map[string]int{}
	var order []string
	for _, m := range members {
		f, ok := fleetOf(m.Cluster)
		if !ok || f == fleet || m.Move {
			continue
		}
		if others[f] == 0 {
			order = append(order, f)
		}
		others[f]++
		names = append(names, m.Cluster)
	}
	if len(names) == 0 {
		return nil
	}
	hint := ""
	if c := typo.Closest(fleet, order); c != "" {
		hint = fmt.Sprintf("did you mean --fleet %s? ", c)
	}
	return fmt.Errorf("%w: fleet run --fleet %s would move %d cluster(s) out of fleet %s (%s); %sto move them into fleet %s, pass --move",
		ErrRefused, fleet, len(names), strings.Join(order, ", "), firstNames(names, 5), hint, fleet)
}

// firstNames lists up to n names, and how many more there are.
func firstNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
