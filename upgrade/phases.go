package upgrade

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// The kubelet step runs in phases, each a host status of its own (state.KubeletPhases) and the
// tasks of the kubelet playbook tagged with its name: the drain (cordon and drain), the kubelet
// (kubeadm upgrade node on a worker, the packages, the restart, the node Ready) and the uncordon.
// Each host enters the phase its status says (a retry from draining-node-failed drains again,
// one from uncordoning-node-failed only uncordons) and moves on, one compare-and-set
// transaction under the lease per move; the host fence of the operation guards every phase's
// commands. A playbook with none of these tags (a site's own) runs whole in the kubelet phase.
var phaseTags = map[state.HostStatus]string{
	state.DrainingNode:     playbooks.TagDrain,
	state.UpgradingKubelet: playbooks.TagKubelet,
	state.UncordoningNode:  playbooks.TagUncordon,
	// abort --kubelets plays the same playbook, its kubelet tasks taking the kubelet back.
	state.DowngradingKubelet: playbooks.TagKubelet,
}

// phaseList is the walk's phases: the kubelet step's, or abort's (walkPhases).
func (o *op) phaseList() []state.HostStatus {
	if o.walkPhases != nil {
		return o.walkPhases
	}
	return state.KubeletPhases()
}

// nextPhase is the status after phase ph succeeds: the next phase, after the last the walk's end
// (upgraded-kubelet for the kubelet step, walkEnd for abort's).
func (o *op) nextPhase(ph state.HostStatus) state.HostStatus {
	ps := o.phaseList()
	if i := slices.Index(ps, ph); i >= 0 && i < len(ps)-1 {
		return ps[i+1]
	}
	if o.walkPhases != nil {
		return o.walkEnd
	}
	return state.UpgradedKubelet
}

// entryOf is the phase host enters: the one its status says (a retry starts where it stopped),
// unless the op decided it (entry: abort's, from what the host runs now).
func (o *op) entryOf(host string) state.HostStatus {
	if e, ok := o.entry[host]; ok {
		return e
	}
	return o.hostFrom[host].KubeletEntry()
}

// walk runs the phases in order, each on the hosts in its status: a host that succeeds moves
// to the next phase (upgraded-kubelet after the last, the write that may release the lease), a
// host that fails is failed through the one path, to its phase's failed twin, and runs no
// further phase. It returns every host's failure.
func (o *op) walk(ctx context.Context, fence *runner.Fence, fenceErr error, gate func(context.Context) error, before map[string]*kubeadm.Snapshot) error {
	at := map[string]state.HostStatus{}
	for _, h := range o.hosts {
		at[h.Name] = o.entryOf(h.Name)
	}
	tagged := hasAnyTag(o.pb, phaseTags)
	var errs []error
	phases := o.phaseList()
	for _, ph := range phases {
		sub := o.phase(ph, at, tagged)
		if len(sub.hosts) == 0 {
			continue
		}
		if !tagged && ph != phases[1] {
			sub.pb = nil // an untagged playbook runs whole in the kubelet phase
		}
		errs = append(errs, sub.finish(ctx, sub.playPhase(ctx, fence, fenceErr, gate), before))
		next := o.nextPhase(ph)
		for _, h := range sub.hosts {
			if sub.moved[h.Name] {
				at[h.Name] = next
			} else {
				delete(at, h.Name)
			}
		}
	}
	return errors.Join(errs...)
}

// phase is o narrowed to phase ph: the hosts in ph, its status and the next, its tag.
func (o *op) phase(ph state.HostStatus, at map[string]state.HostStatus, tagged bool) *op {
	sub := *o
	sub.hosts = nil
	for _, h := range o.hosts {
		if at[h.Name] == ph {
			sub.hosts = append(sub.hosts, h)
		}
	}
	sub.hostTo = ph
	sub.hostDone = o.nextPhase(ph)
	sub.keep = o.keep || slices.Contains(o.phaseList(), sub.hostDone)
	sub.moved = map[string]bool{}
	sub.vars = maps.Clone(o.vars)
	if tagged {
		sub.tags = []string{phaseTags[ph]}
	}
	if ph != o.phaseList()[1] { // the kubelet's version is verified in its own phase
		sub.verify = nil
	}
	return &sub
}

// playPhase plays the phase, or, when its playbook is nil (an untagged playbook's drain or
// uncordon), runs nothing and succeeds on every host.
func (o *op) playPhase(ctx context.Context, fence *runner.Fence, fenceErr error, gate func(context.Context) error) map[string]*hostFailure {
	if o.pb != nil {
		return o.play(ctx, fence, fenceErr, gate)
	}
	failed := map[string]*hostFailure{}
	if ctx.Err() != nil { // interrupted before the phase: its hosts are failed, not moved on
		for _, h := range o.hosts {
			failed[h.Name] = &hostFailure{err: errors.Join(errors.New("interrupted"), ctx.Err())}
		}
	}
	return failed
}

// hasAnyTag reports whether a task of pb (in a block or not) carries one of tags' values.
func hasAnyTag(pb *playbooks.Playbook, tags map[state.HostStatus]string) bool {
	var in func(ts []*playbooks.Task) bool
	in = func(ts []*playbooks.Task) bool {
		for _, t := range ts {
			for _, tag := range t.Tags {
				for _, want := range tags {
					if tag == want {
						return true
					}
				}
			}
			if in(t.Block) || in(t.Rescue) || in(t.Always) {
				return true
			}
		}
		return false
	}
	for _, p := range pb.Plays {
		if in(p.Tasks) {
			return true
		}
	}
	return false
}
