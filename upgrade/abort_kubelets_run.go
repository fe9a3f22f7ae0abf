package upgrade

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/state"
)

// takeKubeletsBack takes each kubelet of backs back to the upgrade's from version, one host after
// the other, through the kubelet playbook's phases with kubelet_back set: the host walks
// draining-node -> downgrading-kubelet -> uncordoning-node -> idle, one compare-and-set under the
// lease per move. The first host's write moves the upgrade into upgrade-aborting and takes the
// lease; the others join it, and the lease stays until the restore that follows ends the abort.
// A host that fails fails the abort (upgrade-aborting-failed, the host at its phase's failed
// twin) and ends it here; the retry reads every kubelet again and goes on where it stopped.
func (w *Workflow) takeKubeletsBack(ctx context.Context, u state.Upgrade, rows []state.Host, backs []kubeletBack) error {
	if len(backs) == 0 {
		return nil
	}
	abort, _ := state.StepNamed(state.StepAbort)
	kubelets, _ := state.StepNamed(state.StepKubelets)
	pb, err := w.playbook(kubelets)
	if err != nil {
		return err
	}
	from := statuses(rows)
	for i, b := range backs {
		w.log().Info("abort: taking the kubelet back", "host", b.host.Name, "why", b.why, "to", u.FromVersion, "enters", b.entry)
		o := &op{w: w, step: abort, from: u.State, hop: u.Hop, hosts: []*inventory.Host{b.host}, hostFrom: from,
			phased: true, walkPhases: state.AbortKubeletPhases(), walkEnd: state.HostIdle, keep: true, joined: i > 0,
			entry: map[string]state.HostStatus{b.host.Name: b.entry}, pb: pb,
			vars: w.vars(u, map[string]any{playbooks.VarToVersion: u.FromVersion, playbooks.VarKubeletBack: kubeletBackVars(b, rows)}),
			verify: func(ctx context.Context, h *inventory.Host, reg map[string]any) error {
				if err := (kubeletExec{}).verify(ctx, w, h, u.FromVersion, reg); err != nil {
					return err
				}
				return w.waitNodeAt(ctx, h, u.FromVersion)
			}}
		if err := o.execute(ctx); err != nil {
			if se := (*StepError)(nil); errors.As(err, &se) && se.Recorded { // the retry needs the flag too
				se.Retry = state.PlainCommand(state.Next("upgrade", "abort", "--kubelets"))
			}
			return err
		}
	}
	return nil
}

// kubeletBackVars is the kubelet playbook's kubelet_back for b's host: config.yaml's sha256 before
// this upgrade and the kubeadm-kubelet-config* folders kubeadm made during it (those the host
// holds now that were not there before; none without a record, and then nothing is put back).
func kubeletBackVars(b kubeletBack, rows []state.Host) map[string]any {
	var rec state.Backups
	for _, r := range rows {
		if r.Hostname == b.host.Name {
			rec = r.Backups
		}
	}
	_, kubeletDirs := madeSince(b.snap)
	made, _ := rec.Add(nil, kubeletDirs)
	return map[string]any{b.host.Name: map[string]any{
		"config_sha":   rec.ConfigSHA256,
		"kubelet_dirs": strings.Join(made.KubeletConfig, "\n"),
	}}
}

// waitNodeAt asks the API server, every verifyEvery for at most VerifyTimeout, until h's node
// reports its running kubelet at version and Ready; the error says what it reports.
func (w *Workflow) waitNodeAt(ctx context.Context, h *inventory.Host, version string) error {
	deadline := time.Now().Add(w.verifyFor())
	for {
		nodes, err := w.nodes(ctx)
		why := fmt.Sprint(err)
		if n, ok := nodes[h.NodeName()]; err == nil && !ok {
			why = "the API server lists no node " + h.NodeName()
		} else if err == nil && n.Kubelet == version && n.Ready {
			return nil
		} else if err == nil {
			why = fmt.Sprintf("its node reports kubelet %s, Ready %t", n.Kubelet, n.Ready)
		}
		wait := min(verifyEvery, time.Until(deadline))
		if wait <= 0 || ctx.Err() != nil {
			return fmt.Errorf("%s is not back at %s after %s: %s", h.Name, version, w.verifyFor(), why)
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// kubeletsNotBack reads every node's kubelet (the inventory's Nodes) after the abort, and the
// nodes of backs as the API server reports them, and names each that is not at version (Ready,
// kupgrade's cordon lifted).
func (w *Workflow) kubeletsNotBack(ctx context.Context, version string, backs []kubeletBack) ([]string, error) {
	vs, err := w.ReadVersions(ctx, w.Inventory.Nodes(), false)
	if err != nil {
		return nil, fmt.Errorf("verify the kubelets: %w", err)
	}
	var diffs []string
	for _, h := range w.Inventory.Nodes() {
		if v := vs[h.Name].Kubelet; v != version {
			diffs = append(diffs, fmt.Sprintf("%s: kubelet at %s, want %s", h.Name, v, version))
		}
	}
	if len(backs) == 0 {
		return diffs, nil
	}
	nodes, err := w.nodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("verify the kubelets taken back: %w", err)
	}
	for _, b := range backs {
		if n, ok := nodes[b.host.NodeName()]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: the API server lists no node %s", b.host.Name, b.host.NodeName()))
		} else if ok, why := n.Settled(version); !ok {
			diffs = append(diffs, b.host.Name+": "+why)
		}
	}
	return diffs, nil
}
