package health

import (
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// Package is one installed package, as the package manager reports it.
type Package struct {
	Name    string `json:"name"`
	Version string `json:"version"` // the distribution's: 1.30.1-1.1 (apt), 1.30.1-150500.1.1 (rpm)
	Held    bool   `json:"held"`    // apt-mark hold; dnf versionlock or an exclude= line
}

// String is "kubeadm 1.30.1-1.1 (held)".
func (p Package) String() string {
	if p.Held {
		return p.Name + " " + p.Version + " (held)"
	}
	return p.Name + " " + p.Version + " (not held)"
}

// Is reports whether the package is installed at v (1.30.1-1.1 is v1.30.1).
func (p Package) Is(v state.Version) bool { return versionIs(p.Version, v) }

// versionIs reports whether a distribution's version (with or without an epoch) is v's release.
func versionIs(pkgVersion string, v state.Version) bool {
	if _, after, ok := strings.Cut(pkgVersion, ":"); ok {
		pkgVersion = after
	}
	return strings.HasPrefix(pkgVersion, fmt.Sprintf("%d.%d.%d-", v.Major, v.Minor, v.Patch))
}

// ParseInstalled reads InstalledScript's output: the packages installed, in the order reported;
// one that is not installed is left out. An output without the script's sections is an error.
func ParseInstalled(out string) ([]Package, error) {
	secs := sections(out)
	mgr, ok := secs["mgr"]
	if !ok {
		return nil, fmt.Errorf("read the installed packages: no report in the output: %s", firstLine(out))
	}
	if _, ok := secs["installed"]; !ok {
		return nil, fmt.Errorf("read the installed packages: package manager %q is not one kupgrade reads (apt, dnf, yum)", firstLine(mgr.body))
	}
	return installedIn(firstLine(mgr.body), secs), nil
}

// dpkgInstalled reads `dpkg-query -W -f '${Package} ${Version} ${Status}\n'`: "kubeadm
// 1.30.1-1.1 hold ok installed" (held: the selection is hold).
func dpkgInstalled(body string) []Package {
	var out []Package
	for _, line := range strings.Split(body, "\n") {
		f := strings.Fields(line)
		if len(f) == 5 && f[4] == "installed" {
			out = append(out, Package{Name: f[0], Version: f[1], Held: f[2] == "hold"})
		}
	}
	return out
}

// rpmInstalled reads `rpm -q --qf '%{NAME} %{VERSION}-%{RELEASE}\n'` ("package kubectl is not
// installed" is left out) and the held list: versionlock entries (kubeadm-0:1.30.1-150500.1.1.*)
// and exclude= values (kubelet kubeadm kubectl, or kube*).
func rpmInstalled(body, held string) []Package {
	locks := strings.FieldsFunc(held, func(r rune) bool { return r == ' ' || r == ',' || r == '\n' || r == '\t' })
	var out []Package
	for _, line := range strings.Split(body, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 {
			out = append(out, Package{Name: f[0], Version: f[1], Held: lockedBy(f[0], locks)})
		}
	}
	return out
}

func lockedBy(name string, locks []string) bool {
	for _, l := range locks {
		rest, ok := strings.CutPrefix(l, name)
		switch {
		case l == name, ok && len(rest) > 1 && rest[0] == '-' && rest[1] >= '0' && rest[1] <= '9':
			return true
		case strings.HasSuffix(l, "*") && strings.HasPrefix(name, strings.TrimSuffix(l, "*")) && !strings.Contains(l, ":"):
			return true
		}
	}
	return false
}

// offeredVersions reads what one repository offers of pkg: `apt-cache madison` ("   kubeadm |
// 1.31.1-1.1 | https://... Packages") or `dnf list --showduplicates` ("kubeadm.x86_64
// 1.31.1-150500.1.1 kubernetes", under Installed or Available Packages).
func offeredVersions(mgr, pkg, body string) []string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if mgr == managerApt {
			f := strings.Split(line, "|")
			if len(f) == 3 && strings.TrimSpace(f[0]) == pkg {
				out = append(out, strings.TrimSpace(f[1]))
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) == 3 && strings.HasPrefix(f[0], pkg+".") {
			out = append(out, f[1])
		}
	}
	return out
}
