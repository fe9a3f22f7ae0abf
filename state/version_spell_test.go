package state_test

import (
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

// `upgrade start 1.30.1` and `upgrade plan --version 1.30.1` store and show v1.30.1; a bad
// version leaves the others as typed.
func TestSpellVersions(t *testing.T) {
	to, from, none := "1.30.1", "v1.29.4", ""
	if err := state.SpellVersions(&to, &from, &none); err != nil || to != "v1.30.1" || from != "v1.29.4" || none != "" {
		t.Errorf("got %q %q %q, %v", to, from, none, err)
	}
	good, bad := "1.30.1", "1.x"
	if err := state.SpellVersions(&good, &bad); err == nil || good != "1.30.1" {
		t.Errorf("got %q, %v; want an error and nothing rewritten", good, err)
	}
}
