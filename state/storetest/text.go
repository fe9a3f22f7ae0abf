package storetest

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kupgrade/kupgrade/state"
)

// testStoredText: every text a store writes is valid UTF-8 and fits its column, whatever it was
// given: a failure reason with bytes that are not UTF-8 and a line over 64 KiB (MariaDB refuses
// both: errors 1366 and 1406), a worker batch's operation name over 255 characters. The writes
// go through, and what is read back starts as what was written.
func testStoredText(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	create(t, s, "c1")
	walk(t, s, "c1", state.UpgradedNetworking)
	var batch []string
	for i := range 40 {
		batch = append(batch, "worker-"+strings.Repeat("0", 3)+string(rune('a'+i%26)))
	}
	op := "kubelets@" + strings.Join(batch, ":")
	spec := state.LeaseSpec{Owner: "runner", Operation: op, TTL: time.Minute}
	if _, err := s.Apply(ctx, state.Start("c1", state.ActorRunner, state.UpgradedNetworking, state.UpgradingFirstMaster, spec)); err != nil {
		t.Fatalf("a lease whose operation has %d characters: %v", len(op), err)
	}
	l, err := s.Lease(ctx, "c1")
	if err != nil || l == nil || len(l.Operation) > 255 || !strings.HasPrefix(op, l.Operation[:200]) {
		t.Fatalf("lease %+v, %v: want its operation cut to 255 bytes", l, err)
	}
	reason := "kubeadm said \xff\xfe: " + strings.Repeat("x", 70<<10)
	if _, err := s.Apply(ctx, state.Fail("c1", state.ActorRunner, state.UpgradingFirstMaster, state.UpgradingFirstMasterFailed,
		state.HeldBy("runner"), state.Because(reason))); err != nil {
		t.Fatalf("a failure whose reason is not UTF-8 and %d bytes long: %v", len(reason), err)
	}
	evs, err := s.Events(ctx, "c1", 1)
	if err != nil || len(evs) != 1 {
		t.Fatalf("events %v, %v", evs, err)
	}
	got := evs[0].Reason
	if !utf8.ValidString(got) || len(got) > 65535 || !strings.HasPrefix(got, "kubeadm said \uFFFD: xxx") {
		t.Errorf("stored reason (%d bytes, valid UTF-8 %v) starts %q", len(got), utf8.ValidString(got), got[:min(len(got), 40)])
	}
	if u := mustUpgrade(t, s, "c1"); u.State != state.UpgradingFirstMasterFailed {
		t.Errorf("state %s: the failure was not recorded", u.State)
	}
}

// testEntered: whether an upgrade entered a state is read from its whole history, however many
// events came after, and only for that upgrade.
func testEntered(t *testing.T, b Backend) {
	s := b.Open(t)
	ctx := t.Context()
	u := create(t, s, "c1")
	walk(t, s, "c1", state.UpgradedNetworking)
	for range 30 {
		if err := s.AddEvent(ctx, state.Event{Cluster: "c1", Actor: state.ActorRunner, Reason: "evidence"}); err != nil {
			t.Fatal(err)
		}
	}
	for st, want := range map[state.State]bool{state.DownloadingImages: true, state.UpgradedNetworking: true, state.UpgradeComplete: false} {
		got, err := s.Entered(ctx, "c1", u.UUID, st)
		if err != nil || got != want {
			t.Errorf("Entered(%s) = %v, %v; want %v", st, got, err, want)
		}
	}
	if got, err := s.Entered(ctx, "c1", "another-upgrade", state.DownloadingImages); err != nil || got {
		t.Errorf("Entered for another upgrade's uuid = %v, %v; want false", got, err)
	}
}
