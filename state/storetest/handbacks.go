package storetest

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kupgrade/kupgrade/state"
)

// testHandBacks: a fleet cluster's hand-back count lives in its row, whichever runner claims it:
// a run handed back or never finished stays counted for the next claim, another runner's too;
// an interrupted run given back is not counted; failed resets the count, and its last error is
// stored valid UTF-8 and bounded however long and garbled (MariaDB refused the row, so the claim
// could never be finished).
func testHandBacks(t *testing.T, b Backend) {
	s, ok := b.Open(t).(state.FleetStore)
	if !ok {
		t.Skip("not a fleet store")
	}
	ctx := t.Context()
	if _, err := s.JoinFleet(ctx, "f", []state.FleetMember{{Cluster: "c1", ToVersion: "v1.30.1"}}); err != nil {
		t.Fatal(err)
	}
	const ttl = 300 * time.Millisecond
	run := func(owner string, wantPrior int) state.Claim {
		t.Helper()
		var cs []state.Claim
		for deadline := time.Now().Add(5 * time.Second); len(cs) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			var err error
			if cs, err = s.ClaimClusters(ctx, state.ClaimQuery{Fleet: "f", Owner: owner, TTL: ttl, Max: 1}); err != nil {
				t.Fatal(err)
			}
		}
		if len(cs) != 1 {
			t.Fatalf("%s claimed nothing", owner)
		}
		prior, err := s.BeginClaim(ctx, "c1", owner, cs[0].Generation)
		if err != nil || prior != wantPrior {
			t.Fatalf("%s began with %d hand-backs (%v), want %d", owner, prior, err, wantPrior)
		}
		return cs[0]
	}
	c := run("a", 0)
	if err := s.FinishClaim(ctx, "c1", "a", c.Generation, state.FleetPending, "handed back"); err != nil {
		t.Fatal(err)
	}
	run("b", 1) // b's claim is never finished: it expires
	c = run("c", 2)
	wantErr(t, "begin under a claim taken over", func() error { _, err := s.BeginClaim(ctx, "c1", "b", c.Generation-1); return err }(), state.ErrConflict)
	if err := s.ReleaseClaim(ctx, "c1", "c", c.Generation, "interrupted"); err != nil {
		t.Fatal(err)
	}
	c = run("d", 2)
	lastError := "kubeadm said \xff\xfe: " + strings.Repeat("y", 70<<10)
	if err := s.FinishClaim(ctx, "c1", "d", c.Generation, state.FleetFailed, lastError); err != nil {
		t.Fatalf("finish with a last error that is not UTF-8 and %d bytes long: %v", len(lastError), err)
	}
	rows, err := s.FleetRows(ctx, "f")
	if err != nil || len(rows) != 1 || rows[0].HandBacks != 0 || rows[0].Outcome != state.FleetFailed {
		t.Fatalf("rows %+v, %v: want c1 failed with its count reset", rows, err)
	}
	if got := rows[0].LastError; !utf8.ValidString(got) || len(got) > 65535 || !strings.HasPrefix(got, "kubeadm said \uFFFD: yyy") {
		t.Errorf("stored last error (%d bytes, valid UTF-8 %v) starts %q", len(got), utf8.ValidString(got), got[:min(len(got), 40)])
	}
}
