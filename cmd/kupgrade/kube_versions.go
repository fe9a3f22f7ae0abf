package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// upgradeVersionsCmd is `upgrade versions` (StarlingX's kube-version-list): the versions the
// inventory's hosts run and can go to. kupgrade has no catalogue of releases (StarlingX ships
// one), so each row says where it comes from: the hosts' manifests and kubelets, the kubeadm
// installed on them, or kubeadm's rule (one minor at a time, no downgrade).
type upgradeVersionsCmd struct{}

// versionRow is one line of the list. State is StarlingX's word where it has one: active (the
// control plane runs it), partial (some hosts run it), available (a host's kubeadm can go there
// now), unavailable (a host's kubeadm reports it but kubeadm would refuse the step), next (the
// rule allows it but no host's kubeadm reports it yet).
type versionRow struct {
	Version string   `json:"version"`
	State   string   `json:"state"`
	Hosts   []string `json:"hosts"`
	Source  string   `json:"source"`
}

func (c *upgradeVersionsCmd) Run(ctx context.Context, a *app) error {
	inv, err := a.Inventory()
	if err != nil {
		return err
	}
	run := a.Runner(inv, 0)
	w := &upgrade.Workflow{Runner: run, Inventory: inv, Cluster: a.cluster(), Log: a.log}
	vs, err := w.ReadVersions(ctx, inv.Hosts, true)
	if err != nil {
		return err
	}
	kubeadms := readKubeadm(ctx, run, inv.Hosts)
	for _, h := range inv.Hosts {
		if kubeadms[h.Name] == "" {
			a.log.Warn("kubeadm version unreadable: the host's kubeadm does not count", "host", h.Name)
		}
	}
	rows, err := versionList(inv.Controllers(), vs, kubeadms)
	if err != nil {
		return err
	}
	if a.json() {
		return writeJSON(a.stdout, rows)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tSTATE\tHOSTS\tSOURCE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Version, r.State, dash(strings.Join(r.Hosts, ",")), r.Source)
	}
	return tw.Flush()
}

// readKubeadm runs `kubeadm version -o short` on every host at once; a host where it fails (no
// kubeadm, unreachable) has no entry.
func readKubeadm(ctx context.Context, run *runner.Runner, hs []*inventory.Host) map[string]string {
	var mu sync.Mutex
	out := map[string]string{}
	var wg sync.WaitGroup
	for _, h := range hs {
		wg.Go(func() {
			c, err := run.Conn(ctx, h)
			if err != nil {
				return
			}
			var stdout bytes.Buffer
			rc, err := c.Run(ctx, "kubeadm version -o short", nil, &stdout, &bytes.Buffer{})
			v := strings.TrimSpace(stdout.String())
			if _, perr := state.ParseVersion(v); err != nil || rc != 0 || perr != nil {
				return
			}
			mu.Lock()
			out[h.Name] = v
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// versionList builds the rows from what the hosts report: the lowest control-plane version of
// the controllers is where the cluster is (active); a step from there to each kubeadm version
// found is checked as `upgrade start` checks it.
func versionList(controllers []*inventory.Host, vs map[string]upgrade.Versions, kubeadms map[string]string) ([]versionRow, error) {
	byVersion := map[string]*versionRow{}
	row := func(v, st, source string) *versionRow {
		r, ok := byVersion[v]
		if !ok {
			r = &versionRow{Version: v, State: st, Source: source}
			byVersion[v] = r
		}
		return r
	}
	var current state.Version
	found := false
	for _, h := range controllers {
		if v, err := state.ParseVersion(vs[h.Name].ControlPlane); err == nil && (!found || v.Compare(current) < 0) {
			current, found = v, true
		}
	}
	if !found {
		return nil, fmt.Errorf("no controller reports a control-plane version (no manifests in /etc/kubernetes/manifests?): nothing to list from: %w", state.ErrRefused)
	}
	for _, h := range controllers {
		if v := vs[h.Name].ControlPlane; v != "" {
			st, src := "partial", "control-plane manifests (controllers disagree)"
			if v == current.String() {
				st, src = "active", "control-plane manifests"
			}
			r := row(v, st, src)
			r.Hosts = append(r.Hosts, h.Name)
		}
	}
	for _, name := range sortedKeys(vs) {
		if v := vs[name].Kubelet; v != "" && v != current.String() {
			r := row(v, "partial", "kubelet --version")
			r.Hosts = append(r.Hosts, name)
		}
	}
	for _, name := range sortedKeys(kubeadms) {
		v := kubeadms[name]
		if r, ok := byVersion[v]; ok && r.State != "available" && r.State != "unavailable" {
			continue // hosts run it already: that is what its row says
		}
		r := row(v, "available", fmt.Sprintf("kubeadm on the host; a step from %s kubeadm allows", current))
		if to, _ := state.ParseVersion(v); state.CheckVersionStep(current, to, false) != nil {
			r.State = "unavailable"
			r.Source = fmt.Sprintf("kubeadm on the host; %s", stepRefusal(current, to))
		}
		if !slices.Contains(r.Hosts, name) {
			r.Hosts = append(r.Hosts, name)
		}
	}
	return append(sortedRows(byVersion), ruleRows(current, kubeadms)...), nil
}

// stepRefusal says in a few words why kubeadm would not go from current to v.
func stepRefusal(current, v state.Version) string {
	switch {
	case v.Compare(current) == 0:
		return "the cluster's own version"
	case v.Compare(current) < 0:
		return "a downgrade: kubeadm refuses it"
	}
	return "skips a minor version: kubeadm goes one minor at a time"
}

// ruleRows are the steps kubeadm's rule allows that no host's kubeadm reports yet: a later patch
// of the current minor, and the next minor.
func ruleRows(current state.Version, kubeadms map[string]string) []versionRow {
	var laterPatch, nextMinor bool
	for _, s := range kubeadms {
		v, _ := state.ParseVersion(s)
		laterPatch = laterPatch || (v.Major == current.Major && v.Minor == current.Minor && v.Patch > current.Patch)
		nextMinor = nextMinor || (v.Major == current.Major && v.Minor == current.Minor+1)
	}
	var out []versionRow
	if !laterPatch {
		out = append(out, versionRow{Version: fmt.Sprintf("v%d.%d.x (x > %d)", current.Major, current.Minor, current.Patch), State: "next",
			Source: "kubeadm's rule: a later patch; no host's kubeadm reports one yet"})
	}
	if !nextMinor {
		out = append(out, versionRow{Version: fmt.Sprintf("v%d.%d.x", current.Major, current.Minor+1), State: "next",
			Source: fmt.Sprintf("kubeadm's rule: the next minor; install kubeadm v%d.%d.x on the controllers to go there", current.Major, current.Minor+1)})
	}
	return out
}

func sortedRows(m map[string]*versionRow) []versionRow {
	var out []versionRow
	for _, r := range m {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b versionRow) int {
		va, _ := state.ParseVersion(a.Version)
		vb, _ := state.ParseVersion(b.Version)
		return va.Compare(vb)
	})
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
