package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// stepLines are the plan's steps from here, one line each, as KubeOne's apply lists its actions
// before it asks: `~ upgrade control plane node "controller-0": v1.29.4 -> v1.30.1`. The
// versions a step moves between are its hop's ("" when the plan cannot be read: the question
// then names the next command alone).
func stepLines(p *upgrade.Preview) []string {
	var out []string
	for _, s := range p.Steps {
		from, to := hopVersions(p, s.Hop)
		change := from + " -> " + to
		switch s.Step {
		case string(state.StepFirstMaster), string(state.StepSecondMaster):
			for _, h := range s.Hosts {
				out = append(out, fmt.Sprintf("~ upgrade control plane node %q: %s", h, change))
			}
		case string(state.StepKubelets):
			for _, h := range s.Hosts {
				out = append(out, fmt.Sprintf("~ upgrade kubelet of node %q: %s", h, change))
			}
		default:
			out = append(out, "~ "+stepWords(s))
		}
	}
	return out
}

// stepWords is a step that upgrades no node, in words: "download-images on the controllers",
// "complete (on the database)".
func stepWords(s upgrade.PlannedStep) string {
	switch {
	case s.Playbook == "":
		return s.Step + " (on the database)"
	case len(s.Hosts) == 0:
		return s.Step + " on the controllers"
	}
	return s.Step + " on " + strings.Join(s.Hosts, ", ")
}

// hopVersions are the versions the hop labelled hop moves between ("hop 2 of 3 (v1.31.14)"),
// or the upgrade's for a one-hop upgrade.
func hopVersions(p *upgrade.Preview, hop string) (string, string) {
	from := dash(p.From)
	for _, h := range p.Hops {
		if strings.HasSuffix(hop, "("+h+")") {
			return from, h
		}
		from = h
	}
	return dash(p.From), p.To
}

// runSteps are the lines of the steps `upgrade run --until until` would run, and the overrides
// of the health checks in force for the upgrade; nil when the plan cannot be read.
func (a *app) runSteps(ctx context.Context, w *upgrade.Workflow, until string) []string {
	p, err := w.Preview(ctx, upgrade.PreviewOptions{Recorded: true, Until: state.State(until)})
	if err != nil || len(p.Steps) == 0 {
		return nil
	}
	lines := stepLines(p)
	ph := &planHealth{}
	if a.addRecordedSkips(ctx, w, ph) == nil && len(ph.Overrides) > 0 {
		lines = append(lines, "overrides in force: --skip-check "+strings.Join(ph.Overrides, ",")+" (given at the start, recorded)")
	}
	return lines
}

// abortLines are what abort will put back, one line a host, as the database last recorded the
// versions, and what becomes of etcd: `~ roll back control plane node "controller-0": v1.30.1
// -> v1.29.4`. nil when the upgrade or its hosts cannot be read.
func abortLines(ctx context.Context, st hostsReader, cluster string, kubelets, restoreEtcd bool) []string {
	u, err := st.Upgrade(ctx, cluster)
	if err != nil {
		return nil
	}
	hosts, err := st.Hosts(ctx, cluster)
	if err != nil {
		return nil
	}
	var out []string
	for _, h := range hosts {
		if h.Personality == state.Controller && h.ControlPlaneVersion != "" && h.ControlPlaneVersion != u.FromVersion {
			out = append(out, fmt.Sprintf("~ roll back control plane node %q: %s -> %s", h.Hostname, h.ControlPlaneVersion, u.FromVersion))
		}
		if kubelets && h.KubeletVersion != "" && h.KubeletVersion != u.FromVersion {
			out = append(out, fmt.Sprintf("~ take back kubelet of node %q: %s -> %s", h.Hostname, h.KubeletVersion, u.FromVersion))
		}
	}
	if len(out) == 0 {
		out = append(out, "~ no control plane recorded past "+u.FromVersion+": abort verifies the controllers and records the abort")
	}
	etcd := "etcd: left as it is, every write kept (abort refuses where it needs etcd restored: --restore-etcd)"
	if restoreEtcd {
		etcd = "etcd: restored from this upgrade's snapshot, every API write since discarded (named below)"
	}
	return append(out, etcd)
}

// hostsReader reads a cluster's upgrade and hosts: what every store has.
type hostsReader interface {
	upgradeReader
	Hosts(ctx context.Context, cluster string) ([]state.Host, error)
}
