package recovery

import (
	"context"
	"errors"

	"github.com/kupgrade/kupgrade/state"
)

// FailAll fails the in-flight operation of req.Cluster with every host it left in flight: a
// kubelet batch has several hosts upgrading-kubelet under one lease, and failing only one of them
// would leave the others in flight with nobody's lease. The lease is released with the last host.
// It returns one Result per write (the first also when it was a no-op).
func FailAll(ctx context.Context, st Store, req Request) ([]Result, error) {
	var out []Result
	for {
		hosts, err := st.Hosts(ctx, req.Cluster)
		if err != nil && !errors.Is(err, state.ErrBadRow) { // a host row's time decides nothing here
			return out, err
		}
		left := inFlightHosts(hosts)
		r := req
		r.KeepLease = len(left) > 1
		if len(out) > 0 { // the first write released or kept the lease: ours from here on
			if len(left) == 0 {
				return out, nil
			}
			r.Host, r.Expect = left[0], ""
			if !req.Force && req.LeaseOwner == "" {
				r.Force = true // the lease (if any) is the one this call is releasing, host by host
			}
		}
		res, err := Fail(ctx, st, r)
		if err != nil {
			return out, err
		}
		out = append(out, res)
		if res.NoOp || res.Host == state.WholeCluster {
			return out, nil
		}
	}
}

func inFlightHosts(hosts []state.Host) []string {
	var names []string
	for _, h := range hosts {
		if h.Status.InFlight() {
			names = append(names, h.Hostname)
		}
	}
	return names
}
