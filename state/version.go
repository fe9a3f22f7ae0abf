package state

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes release, vMAJOR.MINOR.PATCH.
type Version struct {
	Major, Minor, Patch int
}

// ParseVersion parses "vMAJOR.MINOR.PATCH" (the leading v is required, as kubeadm prints it).
// A malformed value is ErrBadInput naming it.
func ParseVersion(s string) (Version, error) {
	bad := func(why string) (Version, error) {
		return Version{}, fmt.Errorf("%w: version %q: %s (want vMAJOR.MINOR.PATCH, e.g. v1.29.4)", ErrBadInput, s, why)
	}
	rest, ok := strings.CutPrefix(s, "v")
	if !ok {
		return bad("missing the leading v")
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return bad(fmt.Sprintf("%d dot-separated numbers, want 3", len(parts)))
	}
	var n [3]int
	for i, p := range parts {
		// Digits only: strconv.Atoi would accept "+1" and "-1".
		if p == "" || strings.TrimLeft(p, "0123456789") != "" || len(p) > 9 {
			return bad(fmt.Sprintf("%q is not a number", p))
		}
		if len(p) > 1 && p[0] == '0' {
			return bad(fmt.Sprintf("%q has a leading zero", p))
		}
		n[i], _ = strconv.Atoi(p)
	}
	return Version{n[0], n[1], n[2]}, nil
}

// String prints v as kubeadm does: v1.29.4.
func (v Version) String() string { return fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Compare returns -1, 0 or +1 as v is older than, equal to or newer than w.
func (v Version) Compare(w Version) int {
	for _, d := range [3]int{v.Major - w.Major, v.Minor - w.Minor, v.Patch - w.Patch} {
		if d < 0 {
			return -1
		}
		if d > 0 {
			return 1
		}
	}
	return 0
}

// CheckVersionStep refuses (ErrRefused) an upgrade from `from` to `to` that kubeadm does not
// support: the same version, a downgrade, a change of major version or a jump of more than one
// minor version. force lets a downgrade or a jump through (the operator knows better); the same
// version is refused even then, since there would be nothing to do.
func CheckVersionStep(from, to Version, force bool) error {
	switch {
	case from.Compare(to) == 0:
		return fmt.Errorf("%w: the cluster is already at %s: nothing to upgrade", ErrRefused, to)
	case force:
		return nil
	case to.Compare(from) < 0:
		return fmt.Errorf("%w: %s to %s is a downgrade, which kubeadm does not support; pass --ignore-version-checks to try anyway", ErrRefused, from, to)
	case to.Major != from.Major || to.Minor > from.Minor+1:
		return fmt.Errorf("%w: %s to %s skips a minor version; kubeadm upgrades one minor version at a time (next: v%d.%d.x), or pass --ignore-version-checks",
			ErrRefused, from, to, from.Major, from.Minor+1)
	}
	return nil
}
