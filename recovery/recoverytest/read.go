package recoverytest

import (
	"encoding/json"
	"testing"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
)

// Upgrade reads cluster's upgrade.
func (f *Fixture) Upgrade(t *testing.T, cluster string) state.Upgrade {
	t.Helper()
	u, err := f.St.Upgrade(t.Context(), cluster)
	if err != nil {
		t.Fatalf("read upgrade: %v", err)
	}
	return u
}

// Status reads host's status in cluster.
func (f *Fixture) Status(t *testing.T, cluster, host string) state.HostStatus {
	t.Helper()
	hs, err := f.St.Hosts(t.Context(), cluster)
	if err != nil {
		t.Fatalf("read hosts: %v", err)
	}
	for _, h := range hs {
		if h.Hostname == host {
			return h.Status
		}
	}
	t.Fatalf("no host %s", host)
	return ""
}

// Lease reads cluster's lease, nil when none.
func (f *Fixture) Lease(t *testing.T, cluster string) *state.Lease {
	t.Helper()
	l, err := f.St.Lease(t.Context(), cluster)
	if err != nil {
		t.Fatalf("read lease: %v", err)
	}
	return l
}

// Events reads cluster's events, newest first.
func (f *Fixture) Events(t *testing.T, cluster string) []state.Event {
	t.Helper()
	evs, err := f.St.Events(t.Context(), cluster, 1000)
	if err != nil {
		t.Fatalf("read events: %v", err)
	}
	return evs
}

// Evidence decodes the evidence of the newest event.
func (f *Fixture) Evidence(t *testing.T, cluster string) recovery.Evidence {
	t.Helper()
	evs := f.Events(t, cluster)
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	var ev recovery.Evidence
	if err := json.Unmarshal(evs[0].Evidence, &ev); err != nil {
		t.Fatalf("decode evidence %s: %v", evs[0].Evidence, err)
	}
	return ev
}
