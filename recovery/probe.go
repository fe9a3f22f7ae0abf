package recovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/state"
)

// Prober looks at a host's kubelet config and static-pod manifests (the kubelet-config check of
// docs/states.md) and says how far an interrupted kubeadm step got towards target. cmd implements it
// over SSH (the runner runs kubeadm's probe, kubeadm judges it), so that recovery itself never
// imports the runner; tests use a fake. An error of class fault.ErrUnreachable means the host
// could not be reached.
type Prober interface {
	Probe(ctx context.Context, host, target string) (kubeadm.Finding, error)
}

// defaultProbeTimeout bounds one probe, so that a dead host cannot stall recover or a pass.
const defaultProbeTimeout = 30 * time.Second

// ProbeResult is what probing one host gave: a finding, or why there is none.
type ProbeResult struct {
	Finding     *kubeadm.Finding `json:"finding,omitempty"`
	Error       string           `json:"error,omitempty"`
	Unreachable bool             `json:"unreachable,omitempty"`
}

// probe runs p on host with a timeout. A failed probe is a result, never an error: the host that
// was being worked on is often the one that died, and the operation must still be failed. A host
// that died in a node phase (status draining-node, uncordoning-node) is not probed: kubeadm did
// not run there, and the finding says what to do about the drain or the uncordon.
func probe(ctx context.Context, st Store, cluster string, p Prober, host string, status state.HostStatus, target string, timeout time.Duration) *ProbeResult {
	if f, ok := kubeadm.NodePhaseFinding(status, host, ""); ok && host != "" {
		return &ProbeResult{Finding: &f}
	}
	if p == nil || host == "" {
		return nil
	}
	before := beforeSnapshot(ctx, st, cluster, host)
	if timeout <= 0 {
		timeout = defaultProbeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	f, err := p.Probe(ctx, host, target)
	if err != nil {
		return &ProbeResult{Error: err.Error(),
			Unreachable: errors.Is(err, fault.ErrUnreachable) || errors.Is(err, context.DeadlineExceeded)}
	}
	if before != nil {
		// The runner recorded the host before kubeadm ran: compare with it, which tells a late
		// failure (config.yaml rewritten) from an early one, instead of judging the after alone.
		f = kubeadm.Classify(*before, f.After, target)
	}
	return &ProbeResult{Finding: &f}
}

// beforeSnapshot finds the snapshot the runner took of host just before it put the host in
// flight (stored in that event's evidence as "before"), or nil.
func beforeSnapshot(ctx context.Context, st Store, cluster, host string) *kubeadm.Snapshot {
	evs, err := st.Events(ctx, cluster, 50)
	if err != nil {
		return nil
	}
	for _, e := range evs { // newest first
		// The event that put the host in flight, not a later move between the kubelet's phases.
		if e.Hostname != host || !e.ToHostStatus.InFlight() || e.FromHostStatus.InFlight() {
			continue
		}
		ev, err := ParseEvidence(e.Evidence)
		if err != nil || ev.Before == nil || ev.Before.Taken.IsZero() {
			return nil
		}
		return ev.Before
	}
	return nil
}

// Evidence is the one shape of what an event stores about a failure, whoever wrote it: the
// runner (what the task did and what the probe found), recover and the audit (why the operation
// was judged stuck), and the runner again when it puts a host in flight (the snapshot taken
// before kubeadm, which recover and the audit compare with after a crash). Fields a writer does
// not know are left out of the JSON.
type Evidence struct {
	// What the runner saw.
	Step       string   `json:"step,omitempty"`
	Task       string   `json:"task,omitempty"`
	ExitStatus *int     `json:"exit_status,omitempty"`
	Error      string   `json:"error,omitempty"`
	Stdout     []string `json:"stdout_tail,omitempty"`
	Stderr     []string `json:"stderr_tail,omitempty"`

	// Why recover or the audit judged the operation stuck: DetectedBy is "recover",
	// "recover --force", "lease-expired" or "stale-state".
	DetectedBy     string           `json:"detected_by,omitempty"`
	HostStatus     state.HostStatus `json:"host_status,omitempty"`
	StateEnteredAt time.Time        `json:"state_entered_at,omitzero"`
	StateAge       string           `json:"state_age,omitempty"`
	// Lease is the lease found: expired (audit), or live and overridden (recover --force).
	Lease *state.Lease `json:"lease,omitempty"`

	// The host and what is on its disk.
	Host        string            `json:"host,omitempty"`
	Before      *kubeadm.Snapshot `json:"before,omitempty"`
	Finding     *kubeadm.Finding  `json:"finding,omitempty"`
	ProbeError  string            `json:"probe_error,omitempty"`
	Unreachable bool              `json:"unreachable,omitempty"`
}

// ParseEvidence reads an event's evidence; an empty one is the zero Evidence.
func ParseEvidence(raw []byte) (Evidence, error) {
	var ev Evidence
	if len(raw) == 0 {
		return ev, nil
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return ev, fmt.Errorf("read evidence: %w", err)
	}
	return ev, nil
}

func newEvidence(by string, u state.Upgrade, l *state.Lease, h state.Host, pr *ProbeResult, now time.Time) Evidence {
	ev := Evidence{DetectedBy: by, Host: h.Hostname, HostStatus: h.Status,
		StateEnteredAt: u.StateEnteredAt.UTC(), StateAge: Age(now, u.StateEnteredAt).String(), Lease: l}
	if pr != nil {
		ev.Finding, ev.ProbeError, ev.Unreachable = pr.Finding, pr.Error, pr.Unreachable
	}
	return ev
}

// AgeText is d for people, as every listing and message prints an age: 45s, 12m, 3h20m, 2d4h.
func AgeText(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

// Age is now - t rounded to the second; never negative (a clock a little behind the writer's).
func Age(now, t time.Time) time.Duration {
	d := now.Sub(t)
	if d < 0 {
		return 0
	}
	return d.Round(time.Second)
}
