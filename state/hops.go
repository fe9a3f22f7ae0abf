package state

import (
	"fmt"
	"slices"
	"strings"
)

// An upgrade across several minor versions walks hops: the control plane goes through each
// minor in between, kubeadm allowing one minor at a time, then to the target. The upgrade row
// records the hop list (Upgrade.Hops, the target last) and the hop running (Upgrade.Hop); each
// hop walks the steps from upgrade-started with Target as its version, and the next-hop step
// moves to the following one. A one-hop upgrade has no list: its Target is ToVersion.

// Target is the version the running hop upgrades to: ToVersion unless the upgrade has hops.
func (u Upgrade) Target() string {
	if u.Hop >= 0 && u.Hop < len(u.Hops) {
		return u.Hops[u.Hop]
	}
	return u.ToVersion
}

// HopsLeft is how many hops follow the running one.
func (u Upgrade) HopsLeft() int { return max(len(u.Hops)-1-u.Hop, 0) }

// HopLabel names the running hop for people: "hop 2 of 3 (v1.31.14)", "" for a one-hop upgrade.
func (u Upgrade) HopLabel() string {
	if len(u.Hops) < 2 {
		return ""
	}
	return fmt.Sprintf("hop %d of %d (%s)", u.Hop+1, len(u.Hops), u.Target())
}

// HopsLine says, for people, which hop runs and how many are left, and the whole walk: "hop 1
// of 2 (v1.30.9), 1 left: v1.29.4 -> v1.30.9 -> v1.31.2"; "" for a one-hop upgrade.
func (u Upgrade) HopsLine() string {
	if len(u.Hops) < 2 {
		return ""
	}
	return fmt.Sprintf("%s, %d left: %s -> %s", u.HopLabel(), u.HopsLeft(), u.FromVersion, strings.Join(u.Hops, " -> "))
}

// KubeletsEachHop reports whether the kubelets must follow the control plane at every hop: the
// skew policy does not allow them to stay at from until the last one.
func (u Upgrade) KubeletsEachHop() bool {
	from, ferr := ParseVersion(u.FromVersion)
	to, terr := ParseVersion(u.ToVersion)
	return len(u.Hops) > 1 && (ferr != nil || terr != nil || !KubeletsAtEnd(from, to))
}

// KubeletSkew is how many minor versions a kubelet may be older than the API server of api:
// three since v1.28, two before.
func KubeletSkew(api Version) int {
	if api.Major == 1 && api.Minor < 28 {
		return 2
	}
	return 3
}

// KubeletsAtEnd reports whether kubelets at from may stay there while the control plane goes
// to to, and be upgraded once at the end.
func KubeletsAtEnd(from, to Version) bool {
	return from.Major == to.Major && to.Minor-from.Minor <= KubeletSkew(to)
}

// PlanHops returns the versions an upgrade from from to to walks, in order, to last: the newest
// release of each minor in between that available offers, then to. A step within one minor, or
// to the next, is one hop: nil (the upgrade has no list). A minor in between that available does
// not offer is refused, naming it and what is offered; so is to when available is given and does
// not offer it. The version checks of each hop are CheckVersionStep's.
func PlanHops(from, to Version, available []Version) ([]string, error) {
	if to.Major != from.Major || to.Minor <= from.Minor+1 || to.Pre != "" { // CheckVersionStep judges these
		return nil, nil
	}
	if len(available) == 0 {
		return nil, fmt.Errorf("%w: %s to %s skips a minor version; kubeadm upgrades one minor version at a time: list the releases the site offers, in order, in the inventory variable %s (e.g. [v%d.%d.0, ..., %s]) and kupgrade walks the hops, or pass --ignore-version-checks",
			ErrRefused, from, to, VarVersions, from.Major, from.Minor+1, to)
	}
	if !slices.ContainsFunc(available, func(v Version) bool { return v.Compare(to) == 0 }) {
		return nil, fmt.Errorf("%w: %s is not among the releases offered (%s: %s)", ErrRefused, to, VarVersions, spell(available))
	}
	var hops []string
	for minor := from.Minor + 1; minor < to.Minor; minor++ {
		best, ok := newestOf(available, from.Major, minor)
		if !ok {
			return nil, fmt.Errorf("%w: %s to %s goes through v%d.%d, and no v%d.%d release is offered (%s: %s)",
				ErrRefused, from, to, from.Major, minor, from.Major, minor, VarVersions, spell(available))
		}
		hops = append(hops, best.String())
	}
	return append(hops, to.String()), nil
}

// VarVersions is the inventory variable that lists the releases the site offers, in order.
const VarVersions = "kupgrade_versions"

// newestOf is the newest release (no pre-release) of major.minor in vs.
func newestOf(vs []Version, major, minor int) (Version, bool) {
	var best Version
	found := false
	for _, v := range vs {
		if v.Major == major && v.Minor == minor && v.Pre == "" && (!found || v.Compare(best) > 0) {
			best, found = v, true
		}
	}
	return best, found
}

func spell(vs []Version) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}
