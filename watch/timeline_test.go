package watch_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/watch"
)

// ev is one event of a cluster's history, at its offset from t0.
type ev struct {
	at       time.Duration
	host     string
	from, to state.State
	fromH    state.HostStatus
	toH      state.HostStatus
	reason   string
}

// history is the events as the store returns them: newest first.
func history(t0 time.Time, uuid string, in ...ev) []state.Event {
	var out []state.Event
	for _, e := range in {
		out = append(out, state.Event{Cluster: "c", UpgradeUUID: uuid, Hostname: e.host, FromState: e.from, ToState: e.to,
			FromHostStatus: e.fromH, ToHostStatus: e.toH, Reason: e.reason, CreatedAt: t0.Add(e.at)})
	}
	slices.Reverse(out)
	return out
}

// A failed step shows where it failed (host, reason with its terminal escapes shown escaped), its
// retry runs with the time elapsed so far, and a kubelet per host shows done or failed.
func TestTimelineFromEvents(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	m := time.Minute
	evs := history(t0, "u1",
		ev{at: 0, from: state.UpgradeStarted, to: state.UpgradingNetworking},
		ev{at: 2 * m, from: state.UpgradingNetworking, to: state.UpgradedNetworking},
		ev{at: 3 * m, host: "controller-0", from: state.UpgradedNetworking, to: state.UpgradingFirstMaster, toH: state.UpgradingControlPlane},
		ev{at: 10 * m, host: "controller-0", from: state.UpgradingFirstMaster, to: state.UpgradedFirstMaster, fromH: state.UpgradingControlPlane},
		ev{at: 11 * m, host: "controller-1", from: state.UpgradedFirstMaster, to: state.UpgradingSecondMaster, toH: state.UpgradingControlPlane},
		ev{at: 15 * m, host: "controller-1", from: state.UpgradingSecondMaster, to: state.UpgradingSecondMasterFailed,
			fromH: state.UpgradingControlPlane, reason: "kubeadm upgrade node exited 1: \x1b[31m<b>timed out</b>\x1b[0m"},
		ev{at: 20 * m, host: "controller-1", from: state.UpgradingSecondMasterFailed, to: state.UpgradingSecondMaster, toH: state.UpgradingControlPlane},
	)
	evs = append(evs, state.Event{Cluster: "c", UpgradeUUID: "old", FromState: state.UpgradeStarted, ToState: state.DownloadingImages, CreatedAt: t0.Add(-time.Hour)})
	tl := watch.BuildTimeline(evs, "u1", t0.Add(23*m+30*time.Second))
	want := []watch.Bar{
		{Step: "upgrading-networking", Start: t0, Offset: 0, Seconds: 120, Outcome: watch.BarDone},
		{Step: "upgrading-first-master", Host: "controller-0", Start: t0.Add(3 * m), Offset: 180, Seconds: 420, Outcome: watch.BarDone},
		{Step: "upgrading-second-master", Host: "controller-1", Start: t0.Add(11 * m), Offset: 660, Seconds: 240, Outcome: watch.BarFailed,
			Reason: `kubeadm upgrade node exited 1: \u001b[31m<b>timed out</b>\u001b[0m`},
		{Step: "upgrading-second-master", Host: "controller-1", Start: t0.Add(20 * m), Offset: 1200, Seconds: 210, Outcome: watch.BarRunning},
	}
	if !slices.Equal(tl.Bars, want) {
		t.Errorf("bars:\n got %+v\nwant %+v", tl.Bars, want)
	}
	if !tl.Start.Equal(t0) || tl.Seconds != 1410 {
		t.Errorf("the timeline starts %v and lasts %ds; want %v and 1410s (to now: a step runs)", tl.Start, tl.Seconds, t0)
	}
}

// The kubelets: one bar per host, done when upgraded-kubelet, failed when sent back to idle;
// each hop of a multi-hop upgrade numbers its bars.
func TestTimelineKubeletsAndHops(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	m := time.Minute
	evs := history(t0, "u1",
		ev{at: 0, from: state.UpgradeStarted, to: state.DownloadingImages},
		ev{at: m, from: state.DownloadingImages, to: state.DownloadedImages},
		ev{at: 2 * m, from: state.UpgradeComplete, to: state.UpgradeStarted, reason: "next hop"},
		ev{at: 3 * m, from: state.UpgradeStarted, to: state.DownloadingImages},
		ev{at: 4 * m, from: state.DownloadingImages, to: state.DownloadedImages},
		ev{at: 5 * m, host: "worker-0", from: state.UpgradingKubelets, to: state.UpgradingKubelets, toH: state.UpgradingKubelet},
		ev{at: 5 * m, host: "worker-1", from: state.UpgradingKubelets, to: state.UpgradingKubelets, toH: state.UpgradingKubelet},
		ev{at: 7 * m, host: "worker-0", from: state.UpgradingKubelets, to: state.UpgradingKubelets, fromH: state.UpgradingKubelet, toH: state.UpgradedKubelet},
		ev{at: 9 * m, host: "worker-1", from: state.UpgradingKubelets, to: state.UpgradingKubelets, fromH: state.UpgradingKubelet, reason: "kubelet did not restart"},
	)
	tl := watch.BuildTimeline(evs, "", t0.Add(10*m))
	type got struct {
		step, host, outcome, reason string
		hop                         int
		secs                        int64
	}
	var g []got
	for _, b := range tl.Bars {
		g = append(g, got{b.Step, b.Host, b.Outcome, b.Reason, b.Hop, b.Seconds})
	}
	want := []got{
		{"downloading-images", "", watch.BarDone, "", 1, 60},
		{"downloading-images", "", watch.BarDone, "", 2, 60},
		{"kubelet", "worker-0", watch.BarDone, "", 2, 120},
		{"kubelet", "worker-1", watch.BarFailed, "kubelet did not restart", 2, 240},
	}
	if !slices.Equal(g, want) {
		t.Errorf("bars:\n got %+v\nwant %+v", g, want)
	}
}

// A step entered again with no end recorded (a hand edit of the state, which writes no event):
// the first run ends failed where the second starts, saying so, and the second runs on.
func TestTimelineStepStartedAgainWithoutEnd(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	evs := history(t0, "u1",
		ev{at: 0, from: state.UpgradeStarted, to: state.UpgradingNetworking},
		ev{at: 5 * time.Minute, from: state.UpgradedNetworking, to: state.UpgradingNetworking},
	)
	tl := watch.BuildTimeline(evs, "u1", t0.Add(6*time.Minute))
	if len(tl.Bars) != 2 || tl.Bars[0].Outcome != watch.BarFailed || tl.Bars[0].Seconds != 300 ||
		tl.Bars[0].Reason != "no end recorded: the step was started again" ||
		tl.Bars[1].Outcome != watch.BarRunning || tl.Bars[1].Seconds != 60 {
		t.Errorf("bars: %+v", tl.Bars)
	}
}

// A host's kubelet step through its phases is one bar: done once upgraded-kubelet, failed when
// the drain ends draining-node-failed; a retry that enters the uncordon draws a bar of its own.
func TestTimelineKubeletPhasesOneBar(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	m := time.Minute
	ku := state.UpgradingKubelets
	evs := history(t0, "u1",
		ev{at: 0, host: "worker-0", from: ku, to: ku, toH: state.DrainingNode},
		ev{at: m, host: "worker-0", from: ku, to: ku, fromH: state.DrainingNode, toH: state.UpgradingKubelet},
		ev{at: 2 * m, host: "worker-0", from: ku, to: ku, fromH: state.UpgradingKubelet, toH: state.UncordoningNode},
		ev{at: 3 * m, host: "worker-0", from: ku, to: ku, fromH: state.UncordoningNode, toH: state.UpgradedKubelet},
		ev{at: 3 * m, host: "worker-1", from: ku, to: ku, toH: state.DrainingNode},
		ev{at: 8 * m, host: "worker-1", from: ku, to: ku, fromH: state.DrainingNode, toH: state.DrainingNodeFailed, reason: "budget default/web"},
	)
	tl := watch.BuildTimeline(evs, "", t0.Add(10*m))
	var g []string
	for _, b := range tl.Bars {
		g = append(g, fmt.Sprintf("%s %s %s %ds", b.Step, b.Host, b.Outcome, b.Seconds))
	}
	want := []string{"kubelet worker-0 " + watch.BarDone + " 180s", "kubelet worker-1 " + watch.BarFailed + " 300s"}
	if !slices.Equal(g, want) {
		t.Errorf("bars:\n got %q\nwant %q", g, want)
	}
}
