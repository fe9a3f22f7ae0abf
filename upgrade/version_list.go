package upgrade

import (
	"fmt"
	"slices"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/state"
)

// VersionRow is one line of `upgrade versions` of the list. State is StarlingX's word where it has one: active (the
// control plane runs it), partial (some hosts run it), available (a host's kubeadm can go there
// now), unavailable (a host's kubeadm reports it but kubeadm would refuse the step), next (the
// rule allows it but no host's kubeadm reports it yet).
type VersionRow struct {
	Version string   `json:"version"`
	State   string   `json:"state"`
	Hosts   []string `json:"hosts"`
	Source  string   `json:"source"`
}

// VersionList builds the rows from what the hosts report: the lowest control-plane version of
// the controllers is where the cluster is (active); a step from there to each kubeadm version
// found (Versions.Kubeadm) is checked as `upgrade start` checks it.
func VersionList(controllers []*inventory.Host, vs map[string]Versions) ([]VersionRow, error) {
	current, found := lowestControlPlane(controllers, vs)
	if !found {
		return nil, fmt.Errorf("no controller reports a control-plane version (no manifests in /etc/kubernetes/manifests?): nothing to list from: %w", state.ErrRefused)
	}
	l := versionRows{}
	for _, h := range controllers {
		if v := vs[h.Name].ControlPlane; v != "" {
			st, src := "partial", "control-plane manifests (controllers disagree)"
			if v == current.String() {
				st, src = "active", "control-plane manifests"
			}
			l.add(v, st, src, h.Name)
		}
	}
	for _, name := range sortedKeys(vs) {
		if v := vs[name].Kubelet; v != "" && v != current.String() {
			l.add(v, "partial", "kubelet --version", name)
		}
	}
	kubeadms := kubeadmVersions(vs)
	for _, name := range sortedKeys(kubeadms) {
		l.addKubeadm(current, kubeadms[name], name)
	}
	return append(sortedRows(l), ruleRows(current, kubeadms)...), nil
}

// versionRows are the rows by version: the first to name a version sets its state and source.
type versionRows map[string]*VersionRow

func (l versionRows) row(v, st, source string) *VersionRow {
	r, ok := l[v]
	if !ok {
		r = &VersionRow{Version: v, State: st, Source: source}
		l[v] = r
	}
	return r
}

func (l versionRows) add(v, st, source, host string) {
	r := l.row(v, st, source)
	r.Hosts = append(r.Hosts, host)
}

// addKubeadm lists the kubeadm v found on host as a step from current, unless hosts run v already.
func (l versionRows) addKubeadm(current state.Version, v, host string) {
	if r, ok := l[v]; ok && r.State != "available" && r.State != "unavailable" {
		return // hosts run it already: that is what its row says
	}
	r := l.row(v, "available", fmt.Sprintf("kubeadm on the host; a step from %s kubeadm allows", current))
	if to, _ := state.ParseVersion(v); state.CheckVersionStep(current, to, false) != nil {
		r.State = "unavailable"
		r.Source = fmt.Sprintf("kubeadm on the host; %s", stepRefusal(current, to))
	}
	if !slices.Contains(r.Hosts, host) {
		r.Hosts = append(r.Hosts, host)
	}
}

// lowestControlPlane is where the cluster is: the lowest control-plane version of the controllers.
func lowestControlPlane(controllers []*inventory.Host, vs map[string]Versions) (current state.Version, found bool) {
	for _, h := range controllers {
		if v, err := state.ParseVersion(vs[h.Name].ControlPlane); err == nil && (!found || v.Compare(current) < 0) {
			current, found = v, true
		}
	}
	return current, found
}

// kubeadmVersions maps each host whose kubeadm reported a version to it.
func kubeadmVersions(vs map[string]Versions) map[string]string {
	out := map[string]string{}
	for name, v := range vs {
		if v.Kubeadm != "" {
			out[name] = v.Kubeadm
		}
	}
	return out
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
func ruleRows(current state.Version, kubeadms map[string]string) []VersionRow {
	var laterPatch, nextMinor bool
	for _, s := range kubeadms {
		v, _ := state.ParseVersion(s)
		laterPatch = laterPatch || (v.Major == current.Major && v.Minor == current.Minor && v.Patch > current.Patch)
		nextMinor = nextMinor || (v.Major == current.Major && v.Minor == current.Minor+1)
	}
	var out []VersionRow
	if !laterPatch {
		out = append(out, VersionRow{Version: fmt.Sprintf("v%d.%d.x (x > %d)", current.Major, current.Minor, current.Patch), State: "next",
			Source: "kubeadm's rule: a later patch; no host's kubeadm reports one yet"})
	}
	if !nextMinor {
		out = append(out, VersionRow{Version: fmt.Sprintf("v%d.%d.x", current.Major, current.Minor+1), State: "next",
			Source: fmt.Sprintf("kubeadm's rule: the next minor; install kubeadm v%d.%d.x on the controllers to go there", current.Major, current.Minor+1)})
	}
	return out
}

func sortedRows(m map[string]*VersionRow) []VersionRow {
	var out []VersionRow
	for _, r := range m {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b VersionRow) int {
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
