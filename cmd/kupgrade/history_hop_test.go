package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

// history names the hop of each event of an upgrade with hops, in the table and in -o json;
// a one-hop upgrade's events name none.
func TestHistoryNamesHops(t *testing.T) {
	evs := []state.Event{
		{Actor: state.ActorRunner, FromState: state.UpgradedSecondMaster, ToState: state.UpgradeStarted, Reason: "next hop", Hop: "hop 2 of 2 (v1.31.2)"},
		{Actor: state.ActorCLI, ToState: state.UpgradeStarted, Reason: "upgrade start"},
	}
	vs := []historyView{newHistoryView(evs[0]), newHistoryView(evs[1])}
	var b strings.Builder
	writeHistory(&b, vs, false, 200)
	lines := strings.Split(b.String(), "\n")
	if !strings.Contains(lines[1], "hop 2 of 2 (v1.31.2): next hop") || strings.Contains(lines[2], "hop") {
		t.Errorf("history table:\n%s", b.String())
	}
	raw, err := json.Marshal(vs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"hop":"hop 2 of 2 (v1.31.2)"`) || strings.Count(string(raw), `"hop"`) != 1 {
		t.Errorf("history -o json: %s", raw)
	}
}
