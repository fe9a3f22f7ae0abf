package upgrade_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// twoPlusOneOffering is twoPlusOne whose inventory lists the releases the site offers.
const twoPlusOneOffering = twoPlusOne + `  vars:
    kupgrade_versions: [v1.30.0, v1.30.9, v1.31.0, v1.31.2, v1.32.1]
`

// v1.29.4 to v1.31.2 walks two hops, v1.30.9 (the newest v1.30 offered) then v1.31.2: the
// control plane through both, the kubelets once at the end (two minors behind is within the
// skew). The seed's late `kubeadm upgrade node` failure at the first hop ends in that hop's
// failed twin with the kubelet-config finding; the retry resumes that hop, and the run completes.
func TestRunWalksHopsAndResumesTheFailedHop(t *testing.T) {
	f := newFixtureWith(t, twoPlusOneOffering)
	u, err := f.w.Start(t.Context(), "v1.31.2", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(u.Hops, []string{"v1.30.9", "v1.31.2"}) || u.Target() != "v1.30.9" {
		t.Fatalf("hops %v, target %s; want [v1.30.9 v1.31.2] starting at v1.30.9", u.Hops, u.Target())
	}
	f.c.onPlay = lateNodeFailure(f, "v1.30.9")
	err = f.w.Run(t.Context(), upgrade.RunOptions{})
	var se *upgrade.StepError
	if !errors.As(err, &se) || se.Finding == nil || se.Finding.Class != "kubelet-config-rewritten" {
		t.Fatalf("run = %v, want the failed step with the kubelet-config finding", err)
	}
	if u := f.wantState(t, state.UpgradingSecondMasterFailed); u.Hop != 0 || u.Target() != "v1.30.9" {
		t.Fatalf("failed at hop %d (%s), want hop 1 (v1.30.9)", u.Hop+1, u.Target())
	}
	if err := f.w.Run(t.Context(), upgrade.RunOptions{}); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if u := f.wantState(t, state.UpgradeComplete); u.Hop != 1 {
		t.Errorf("completed at hop %d, want 2", u.Hop+1)
	}
	want := []string{
		"download-images@controller-0:controller-1", "check-controllers@controller-0:controller-1",
		"control-plane@controller-0", "control-plane@controller-1", "control-plane@controller-1",
		"download-images@controller-0:controller-1", "check-controllers@controller-0:controller-1",
		"control-plane@controller-0", "control-plane@controller-1",
	}
	want = append(want, kubeletPhases("controller-0", "controller-1", "worker-0")...)
	if got := f.c.played(); !slices.Equal(got, want) {
		t.Errorf("playbooks run:\n got %v\nwant %v", got, want)
	}
	for _, name := range []string{"controller-0", "controller-1", "worker-0"} {
		if h := f.host(t, name); h.KubeletVersion != "v1.31.2" {
			t.Errorf("%s: kubelet %s, want v1.31.2", name, h.KubeletVersion)
		}
	}
}

// lateNodeFailure fails `kubeadm upgrade node` on controller-1 once, at the hop to version,
// after it rewrote the manifests and the kubelet config (the seed).
func lateNodeFailure(f *fixture, version string) func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
	return func(ctx context.Context, name, limit string) (*runner.Recap, error, bool) {
		if name != "control-plane" || limit != "controller-1" {
			return nil, nil, false
		}
		f.c.mu.Lock()
		f.c.snaps["controller-1"] = snapAt(version, "sha-new", true)
		f.c.mu.Unlock()
		f.c.onPlay = nil
		r := failed("controller-1", 1, "[upgrade] Backing up kubelet config file\nerror execution phase kubelet-config: boom\n")
		return r, r.Err(), true
	}
}

// Four minors from v1.27 exceed the kubelet's skew (two minors before v1.28, three after): the
// kubelets follow the control plane at every hop.
func TestKubeletsFollowEveryHopBeyondTheSkew(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		hops     []string
		eachHop  bool
	}{
		{"v1.29.4", "v1.32.1", []string{"v1.30.9", "v1.31.2", "v1.32.1"}, false},
		{"v1.28.2", "v1.32.1", []string{"v1.29.4", "v1.30.9", "v1.31.2", "v1.32.1"}, true},
		{"v1.25.0", "v1.27.3", []string{"v1.26.1", "v1.27.3"}, false},
	} {
		var avail []state.Version
		for _, s := range []string{"v1.26.1", "v1.27.3", "v1.29.4", "v1.30.9", "v1.31.2", "v1.32.1"} {
			v, _ := state.ParseVersion(s)
			avail = append(avail, v)
		}
		from, _ := state.ParseVersion(tc.from)
		to, _ := state.ParseVersion(tc.to)
		hops, err := state.PlanHops(from, to, avail)
		if err != nil || !slices.Equal(hops, tc.hops) {
			t.Errorf("PlanHops(%s, %s) = %v, %v; want %v", tc.from, tc.to, hops, err, tc.hops)
		}
		u := state.Upgrade{FromVersion: tc.from, ToVersion: tc.to, Hops: hops}
		if u.KubeletsEachHop() != tc.eachHop {
			t.Errorf("%s -> %s: kubelets each hop = %v, want %v", tc.from, tc.to, !tc.eachHop, tc.eachHop)
		}
	}
}

// A minor in between that no release offers is refused before anything is written, naming it.
func TestHopWithoutAReleaseIsRefused(t *testing.T) {
	f := newFixtureWith(t, twoPlusOne+"  vars:\n    kupgrade_versions: [v1.31.2]\n")
	_, err := f.w.Start(t.Context(), "v1.31.2", "", false)
	if !errors.Is(err, state.ErrRefused) || !strings.Contains(err.Error(), "no v1.30 release is offered") {
		t.Fatalf("start = %v, want a refusal naming v1.30", err)
	}
	if _, err := f.st.Upgrade(t.Context(), "default"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("an upgrade was recorded: %v", err)
	}
}

// The plan of an upgrade across two minors shows the hops before anything changes: each step
// names its hop, next-hop moves from the first to the second, and the kubelets come once, last.
func TestPreviewShowsTheHops(t *testing.T) {
	f := newFixtureWith(t, twoPlusOneOffering)
	p, err := f.w.Preview(t.Context(), upgrade.PreviewOptions{Version: "v1.31.2"})
	if err != nil || p.Refusal != nil {
		t.Fatalf("preview: %v, refusal %v", err, p.Refusal)
	}
	if !slices.Equal(p.Hops, []string{"v1.30.9", "v1.31.2"}) {
		t.Fatalf("hops %v", p.Hops)
	}
	var got []string
	for _, s := range p.Steps[1:] {
		got = append(got, s.Step+" "+s.Hop)
	}
	first, second := " hop 1 of 2 (v1.30.9)", " hop 2 of 2 (v1.31.2)"
	want := []string{"download-images" + first, "networking" + first, "first-master" + first, "second-master" + first,
		"next-hop" + first, "download-images" + second, "networking" + second, "first-master" + second, "second-master" + second,
		"kubelets" + second, "kubelets" + second, "kubelets" + second, "complete" + second}
	if !slices.Equal(got, want) {
		t.Errorf("planned steps:\n got %q\nwant %q", got, want)
	}
	if len(f.c.played()) != 0 {
		t.Errorf("the plan ran %v", f.c.played())
	}
}

// Four minors from v1.29 are beyond the kubelet's skew of three: `upgrade run` upgrades the
// kubelets at every hop, each hop's next-hop waiting for them.
func TestRunUpgradesKubeletsAtEveryHopBeyondTheSkew(t *testing.T) {
	f := newFixtureWith(t, twoPlusOne+"  vars:\n    kupgrade_versions: [v1.30.1, v1.31.1, v1.32.1, v1.33.1]\n")
	if _, err := f.w.Start(t.Context(), "v1.33.1", "", false); err != nil {
		t.Fatal(err)
	}
	if err := f.w.Run(t.Context(), upgrade.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if u := f.wantState(t, state.UpgradeComplete); u.Hop != 3 {
		t.Errorf("completed at hop %d, want 4", u.Hop+1)
	}
	n := 0
	for _, p := range f.c.played() {
		if p == "kubelet:kubelet@worker-0" {
			n++
		}
	}
	if n != 4 {
		t.Errorf("worker-0's kubelet upgraded %d times, want once per hop (4): %v", n, f.c.played())
	}
}
