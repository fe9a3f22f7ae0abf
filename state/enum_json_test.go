package state_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

// TestTypedEnumsKeepTheirJSON: the actor of an event and the personality of a host are typed,
// and `--json` output still spells them as the plain strings scripts read.
func TestTypedEnumsKeepTheirJSON(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{state.Event{Actor: state.ActorWatch}, `"actor":"watch"`},
		{state.Host{Personality: state.Controller}, `"personality":"controller"`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || !strings.Contains(string(b), c.want) {
			t.Errorf("%T: %s (%v), want it to hold %s", c.v, b, err, c.want)
		}
	}
}
