package health

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/kupgrade/kupgrade/state"
)

// packagesAtOnce is how many hosts are asked for their packages at the same time.
const packagesAtOnce = 8

// gatherPackages asks every host of o.Packages that is not skipped, a few at a time, what is
// installed and what its repositories offer at each hop; a host that cannot be asked gets a
// "mgr" section saying why. The hops are o.Hops's from the upgrade's starting version (From,
// else the control plane's lowest read from the cluster's pods, else zero: o.Hops finds it), or
// To alone.
func gatherPackages(ctx context.Context, exec Exec, f *Facts, o Options) {
	if !slices.ContainsFunc(o.Packages, func(h PackageHost) bool { return h.Skip == "" }) {
		return // no host to ask: the hops need not be read
	}
	from := o.From
	if from.Major == 0 {
		pods, _ := list[pod](sections(f.Cluster)["pods"], "pods")
		from = lowestControlPlane(pods)
	}
	f.Hops = []state.Version{o.To}
	if o.Hops != nil {
		if hops, err := o.Hops(from); err == nil && len(hops) > 0 {
			f.Hops = hops
		}
	}
	f.KubeletsEachHop = len(f.Hops) > 1 && !state.KubeletsAtEnd(from, o.To)
	f.Packages = map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, packagesAtOnce)
	for _, h := range o.Packages {
		if h.Skip != "" {
			continue
		}
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			out, err := exec(ctx, h.Name, OfferedScript(h.Manager, h.Packages, h.asked(f.Hops, f.KubeletsEachHop)))
			if err != nil {
				out = fmt.Sprintf("%smgr rc=%d\n%v\n", sectionMark, notFound, err)
			}
			mu.Lock()
			f.Packages[h.Name] = out
			mu.Unlock()
		})
	}
	wg.Wait()
}
