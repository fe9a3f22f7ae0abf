package fleet

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

// TestOutcomesKeepTheirJSON: fleet outcomes are typed, and `fleet status --json` still counts
// them under the plain strings scripts read.
func TestOutcomesKeepTheirJSON(t *testing.T) {
	b, err := json.Marshal(Overview{Outcomes: map[state.FleetOutcome]int{state.FleetDone: 2, state.FleetFailed: 1}})
	if err != nil || !strings.Contains(string(b), `"outcomes":{"done":2,"failed":1}`) {
		t.Fatalf("overview: %s (%v)", b, err)
	}
}
