package watch

import (
	"context"
	"slices"
	"time"

	"github.com/kupgrade/kupgrade/internal/termsafe"
	"github.com/kupgrade/kupgrade/state"
)

// maxTimelines caps the clusters whose events one request reads for their timeline (the ones
// that need a person come first in the table).
const maxTimelines = 20

// timelineEvents is how far back in a cluster's history its timeline looks: every step writes
// two events, and a kubelet batch two per host.
const timelineEvents = 400

// Outcomes of a Bar.
const (
	BarDone    = "done"
	BarFailed  = "failed"
	BarRunning = "running"
)

// Timeline is one upgrade's steps and hosts as its events record them, oldest first.
type Timeline struct {
	Start   time.Time `json:"start"`
	Seconds int64     `json:"seconds"` // from Start to the end of the last bar, or to now if one runs
	Bars    []Bar     `json:"bars"`
	Partial bool      `json:"partial,omitempty"` // older events were not read: the first steps may be missing
}

// Bar is one step, or one host's kubelet, of the timeline: when it started, how long it took
// (or has run so far) and, if it failed, why.
type Bar struct {
	Step    string    `json:"step"` // the in-flight state, or "kubelet"
	Host    string    `json:"host,omitempty"`
	Hop     int       `json:"hop,omitempty"` // 1 for the first hop; 0 when the upgrade has one
	Start   time.Time `json:"start"`
	Offset  int64     `json:"offset_seconds"` // from the timeline's start
	Seconds int64     `json:"seconds"`
	Outcome string    `json:"outcome"` // BarDone, BarFailed, BarRunning
	Reason  string    `json:"reason,omitempty"`
}

// kubeletStep names the per-host bars of upgrading-kubelets.
const kubeletStep = "kubelet"

// BuildTimeline computes the timeline of upgrade uuid ("" for any) from its events, newest
// first as the store returns them, at now. A step starts with the event entering an in-flight
// state and ends with the one leaving it (into its failed twin: failed); a host's kubelet starts
// with its first phase (draining-node, or the phase a retry enters) and ends upgraded-kubelet, or
// failed (back to idle, or to draining-node-failed or uncordoning-node-failed).
func BuildTimeline(evs []state.Event, uuid string, now time.Time) Timeline {
	b := timelineBuilder{open: map[string]int{}, hop: 1}
	for _, e := range slices.Backward(evs) {
		if uuid == "" || e.UpgradeUUID == uuid {
			b.add(e)
		}
	}
	return b.finish(now)
}

type timelineBuilder struct {
	bars []Bar
	open map[string]int // step+host -> index of its running bar
	hop  int
	hops bool
}

func (b *timelineBuilder) add(e state.Event) {
	if e.ToState == state.UpgradeStarted && e.FromState != "" && e.FromState != state.UpgradeStarted {
		b.hop, b.hops = b.hop+1, true // the next hop walks the steps again
	}
	if e.FromState != e.ToState {
		if e.FromState.InFlight() {
			b.end(string(e.FromState), "", e, e.ToState.Failed())
		}
		if e.ToState.InFlight() {
			b.begin(string(e.ToState), "", e)
		}
	}
	if e.Hostname == state.WholeCluster || e.FromHostStatus == e.ToHostStatus {
		return
	}
	// One bar a host's kubelet step (or its kubelet taken back by abort --kubelets), from its
	// first phase to the status it leaves them for: upgraded-kubelet, or idle after an abort's
	// uncordon, when it succeeded.
	inFrom, inTo := e.FromHostStatus.KubeletPhase(), e.ToHostStatus.KubeletPhase()
	if inFrom && !inTo {
		back := e.FromHostStatus == state.UncordoningNode && e.ToHostStatus == state.HostIdle
		b.end(kubeletStep, e.Hostname, e, e.ToHostStatus != state.UpgradedKubelet && !back)
	}
	if inTo && !inFrom {
		b.begin(kubeletStep, e.Hostname, e)
	}
}

// begin opens a bar; a cluster step's host is the event's (the controller of a master step).
func (b *timelineBuilder) begin(step, key string, e state.Event) {
	if i, ok := b.open[step+"\x00"+key]; ok { // entered again without an end: that run died
		b.end(step, key, e, true)
		b.bars[i].Reason = "no end recorded: the step was started again"
	}
	b.open[step+"\x00"+key] = len(b.bars)
	b.bars = append(b.bars, Bar{Step: step, Host: clean(e.Hostname), Hop: b.hop, Start: e.CreatedAt, Outcome: BarRunning})
}

func (b *timelineBuilder) end(step, key string, e state.Event, failed bool) {
	i, ok := b.open[step+"\x00"+key]
	if !ok {
		return
	}
	delete(b.open, step+"\x00"+key)
	bar := &b.bars[i]
	bar.Seconds = seconds(e.CreatedAt.Sub(bar.Start))
	bar.Outcome = BarDone
	if failed {
		bar.Outcome, bar.Reason = BarFailed, clean(e.Reason)
	}
}

func (b *timelineBuilder) finish(now time.Time) Timeline {
	t := Timeline{Bars: []Bar{}} // [] in JSON, not null: the page iterates it
	if len(b.bars) == 0 {
		return t
	}
	t.Start = b.bars[0].Start
	end := t.Start
	for i := range b.bars {
		bar := &b.bars[i]
		if bar.Outcome == BarRunning {
			bar.Seconds = seconds(now.Sub(bar.Start))
		}
		if !b.hops {
			bar.Hop = 0
		}
		bar.Offset = seconds(bar.Start.Sub(t.Start))
		if e := bar.Start.Add(time.Duration(bar.Seconds) * time.Second); e.After(end) {
			end = e
		}
	}
	t.Seconds = seconds(end.Sub(t.Start))
	t.Bars = b.bars
	return t
}

func seconds(d time.Duration) int64 { return max(int64(d.Round(time.Second)/time.Second), 0) }

// clean shows the control characters of host-provided text (terminal escapes) as escapes; the
// page sets what is left as text, never as markup.
func clean(s string) string { return termsafe.Text(s) }

// addTimelines reads the events of the first maxTimelines rows that have an upgrade and
// computes their timelines.
func (w *Watcher) addTimelines(ctx context.Context, rows []ClusterStatus, uuids map[string]string, now time.Time) {
	for i := range min(len(rows), maxTimelines) {
		r := &rows[i]
		if r.Error != "" {
			continue
		}
		evs, err := w.Store.Events(ctx, r.Cluster, timelineEvents)
		if err != nil {
			r.TimelineError = "cannot read its events: " + err.Error()
			continue
		}
		t := BuildTimeline(evs, uuids[r.Cluster], now)
		t.Partial = len(evs) == timelineEvents
		r.Timeline = &t
	}
}
