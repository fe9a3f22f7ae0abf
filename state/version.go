package state

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes release, vMAJOR.MINOR.PATCH, or a pre-release of one
// (vMAJOR.MINOR.PATCH-PRE, e.g. v1.31.0-rc.1).
type Version struct {
	Major, Minor, Patch int
	Pre                 string // "rc.1", "alpha.0", ...; "" for a release
}

// ParseVersion parses "vMAJOR.MINOR.PATCH" or "MAJOR.MINOR.PATCH" (operators type both; String
// prints the v, as kubeadm does), with an optional pre-release suffix ("-rc.1"). A malformed
// value is ErrBadInput naming it. Whether a pre-release may be upgraded to is not decided here:
// see CheckVersionStep.
func ParseVersion(s string) (Version, error) {
	bad := func(why string) (Version, error) {
		return Version{}, fmt.Errorf("%w: version %q: %s (want vMAJOR.MINOR.PATCH or MAJOR.MINOR.PATCH, e.g. v1.29.4)", ErrBadInput, s, why)
	}
	rest := strings.TrimPrefix(s, "v")
	if strings.Contains(rest, "+") {
		return bad("build metadata (+...) names no Kubernetes release")
	}
	rest, pre, hasPre := strings.Cut(rest, "-")
	if hasPre {
		if why := badPre(pre); why != "" {
			return bad(why)
		}
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return bad(fmt.Sprintf("%d dot-separated numbers, want 3", len(parts)))
	}
	var n [3]int
	for i, p := range parts {
		if why := badNumber(p); why != "" {
			return bad(why)
		}
		n[i], _ = strconv.Atoi(p)
	}
	return Version{Major: n[0], Minor: n[1], Patch: n[2], Pre: pre}, nil
}

// badNumber says what is wrong with p as a version number, "" when nothing is.
func badNumber(p string) string {
	// Digits only: strconv.Atoi would accept "+1" and "-1".
	if p == "" || strings.TrimLeft(p, "0123456789") != "" || len(p) > 9 {
		return fmt.Sprintf("%q is not a number", p)
	}
	if len(p) > 1 && p[0] == '0' {
		return fmt.Sprintf("%q has a leading zero", p)
	}
	return ""
}

// badPre says what is wrong with a pre-release suffix (semver: dot-separated identifiers of
// letters, digits and hyphens), "" when nothing is.
func badPre(pre string) string {
	for _, id := range strings.Split(pre, ".") {
		if id == "" || strings.Trim(id, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") != "" || len(id) > 20 {
			return fmt.Sprintf("pre-release %q is not dot-separated letters and digits", pre)
		}
		if isDigits(id) && len(id) > 1 && id[0] == '0' {
			return fmt.Sprintf("pre-release %q has a leading zero", pre)
		}
	}
	return ""
}

func isDigits(s string) bool { return s != "" && strings.TrimLeft(s, "0123456789") == "" }

// String prints v as kubeadm does: v1.29.4, v1.31.0-rc.1.
func (v Version) String() string {
	s := fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Compare returns -1, 0 or +1 as v is older than, equal to or newer than w. A pre-release is
// older than its release (v1.31.0-rc.1 < v1.31.0), and pre-releases compare as semver says.
func (v Version) Compare(w Version) int {
	for _, d := range [3]int{v.Major - w.Major, v.Minor - w.Minor, v.Patch - w.Patch} {
		if d != 0 {
			return sign(d)
		}
	}
	switch {
	case v.Pre == w.Pre:
		return 0
	case v.Pre == "":
		return 1
	case w.Pre == "":
		return -1
	}
	return comparePre(strings.Split(v.Pre, "."), strings.Split(w.Pre, "."))
}

// comparePre orders pre-release identifiers: numbers numerically and before words, words as text,
// and a shorter list first when one is a prefix of the other.
func comparePre(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		nx, ny := isDigits(x), isDigits(y)
		switch {
		case x == y:
			continue
		case nx && ny:
			ix, _ := strconv.Atoi(x)
			iy, _ := strconv.Atoi(y)
			return sign(ix - iy)
		case nx:
			return -1
		case ny:
			return 1
		}
		return strings.Compare(x, y)
	}
	return sign(len(a) - len(b))
}

func sign(d int) int {
	switch {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}

// ErrNothingToUpgrade marks the refusal of an upgrade to the version the cluster is already at.
var ErrNothingToUpgrade = errors.New("nothing to upgrade")

// CheckVersionStep refuses (ErrRefused) an upgrade from `from` to `to` that kubeadm does not
// support: the same version, a downgrade, a change of major version or a jump of more than one
// minor version. force lets a downgrade or a jump through (the operator knows better); the same
// version is refused even then, since there would be nothing to do. A pre-release target is
// refused even with force: the shipped playbooks run `kubeadm upgrade apply` without
// --allow-release-candidate-upgrades or --allow-experimental-upgrades, so kubeadm would refuse it
// on the host, halfway through. A pre-release as the current version is fine (rc to release).
func CheckVersionStep(from, to Version, force bool) error {
	switch {
	case from.Compare(to) == 0:
		return fmt.Errorf("%w: the cluster is already at %s: %w", ErrRefused, to, ErrNothingToUpgrade)
	case to.Pre != "":
		return fmt.Errorf("%w: %s is a pre-release (%s): kubeadm upgrades to one only with --allow-release-candidate-upgrades or --allow-experimental-upgrades, which kupgrade's playbooks do not pass; upgrade to a release, e.g. v%d.%d.%d",
			ErrRefused, to, to.Pre, to.Major, to.Minor, to.Patch)
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
