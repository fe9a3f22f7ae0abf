package sim

import (
	"errors"
	"fmt"
	"sort"

	"github.com/kupgrade/kupgrade/state"
)

// CheckOneOperation reads the event log (any order) and returns an error for each cluster that
// ever had two operations in flight at once: an operation starts with the event that puts the
// state or a host status in flight, and ends with the one that takes it out (done, failed,
// recovered). With kubelet batches of one, a second start before the first ended is an overlap.
// A host's moves between the kubelet step's phases are within its operation.
func CheckOneOperation(events []state.Event) error {
	byCluster := map[string][]state.Event{}
	for _, e := range events {
		byCluster[e.Cluster] = append(byCluster[e.Cluster], e)
	}
	var errs []error
	for c, evs := range byCluster {
		sort.Slice(evs, func(i, j int) bool { return evs[i].ID < evs[j].ID })
		open := int64(0)
		for _, e := range evs {
			if ends(e) {
				open = 0
			}
			if starts(e) {
				if open != 0 {
					errs = append(errs, fmt.Errorf("cluster %s: event %d (%s) started an operation while the one of event %d was in flight", c, e.ID, e.Reason, open))
				}
				open = e.ID
			}
		}
	}
	return errors.Join(errs...)
}

func starts(e state.Event) bool {
	// A host moving between the kubelet step's phases (draining-node -> upgrading-kubelet ->
	// uncordoning-node) goes on with the operation it is in; only an entry starts one.
	return (e.ToState.InFlight() && e.FromState != e.ToState) || (e.ToHostStatus.InFlight() && !e.FromHostStatus.InFlight())
}

func ends(e state.Event) bool {
	return (e.FromState.InFlight() && !e.ToState.InFlight()) || (e.FromHostStatus.InFlight() && !e.ToHostStatus.InFlight())
}

// MaxConcurrentKubeadm is the most kubeadm commands that ran at once on any host of the fleet.
func (f *Fleet) MaxConcurrentKubeadm() int {
	m := 0
	for _, c := range f.Clusters {
		for _, h := range c.Hosts {
			m = max(m, h.MaxConcurrentKubeadm())
		}
	}
	return m
}
