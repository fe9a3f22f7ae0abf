package state

import (
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/internal/typo"
)

// UnknownState is the bad-input error for s given where a cluster state is expected (flag is
// how the user gave it, e.g. "--until"). It names the nearest state when s looks like a typo of
// one, and lists every state, so the fix is on the screen.
func UnknownState(flag string, s State) error {
	names := make([]string, len(allStates))
	for i, st := range allStates {
		names[i] = string(st)
	}
	hint := ""
	if near := typo.Closest(string(s), names); near != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", near)
	}
	err := fmt.Errorf("%s %q is not a state of an upgrade%s; the states, in order: %s",
		flag, s, hint, strings.Join(names, ", "))
	return fault.Mark(err, ErrBadInput)
}
