package health

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// PackageHost is one host the packages check asks, with what the inventory says of its installs.
type PackageHost struct {
	Name     string
	Manager  string   // ansible_pkg_mgr; "": the first of apt-get, dnf and yum the host has
	Kubeadm  bool     // kupgrade installs kubeadm there (no kupgrade_kubeadm_install)
	Kubelets bool     // and the kubelet and kubectl (no kupgrade_kubelet_install)
	Skip     string   // why the host is not checked at all ("": checked)
	Packages []string // the packages whose installed versions are reported
}

// asked are the packages asked at each hop of hops (To last): kubeadm at every hop, the kubelet
// and kubectl where the kubelets go (the last hop, or every hop when the skew policy wants them
// to follow the control plane: kubeletsEachHop).
func (h PackageHost) asked(hops []state.Version, kubeletsEachHop bool) []HopPackages {
	var out []HopPackages
	for i, v := range hops {
		var ps []string
		if h.Kubeadm {
			ps = append(ps, "kubeadm")
		}
		if h.Kubelets && (kubeletsEachHop || i == len(hops)-1) {
			ps = append(ps, "kubelet", "kubectl")
		}
		if len(ps) > 0 {
			out = append(out, HopPackages{Version: v, Packages: ps})
		}
	}
	return out
}

// packagesCheck judges each host's OfferedScript output: every package asked at every hop is
// installed at the hop's version already or offered by the hop's repository, else the check
// fails naming the host, the package, the version and the repository asked. A host that could
// not be asked (unreachable) fails it too, for the check cannot run there; a host the inventory
// says installs its own way is a line saying so.
func packagesCheck(f Facts, o Options) Result {
	if len(o.Packages) == 0 {
		return pass(CheckPackages, "no host to ask")
	}
	var bad, notRun, lines []string
	for _, h := range o.Packages {
		if h.Skip != "" {
			lines = append(lines, h.Name+": not checked: "+h.Skip)
			continue
		}
		secs := sections(f.Packages[h.Name])
		if s, ok := secs["mgr"]; !ok || s.rc != 0 {
			notRun = append(notRun, namingHost(h.Name, "cannot run: "+firstLine(s.body)))
			continue
		}
		problems, installed := judgePackages(h, secs, f.Hops, f.KubeletsEachHop)
		bad = append(bad, problems...)
		lines = append(lines, h.Name+": installed "+cmp.Or(installed, "none of "+strings.Join(h.Packages, ", ")))
	}
	hops := cmp.Or(spellVersions(f.Hops), "the target")
	switch {
	case len(lines) > 0 && len(bad)+len(notRun) == 0 && allSkipped(o.Packages):
		return Result{Check: CheckPackages, Status: Pass, Objects: lines,
			Message: "not checked: every host installs the packages its own way"}
	case len(bad) > 0:
		return Result{Check: CheckPackages, Status: Fail, Objects: append(bad, notRun...),
			Message: fmt.Sprintf("%d package version(s) no repository offers (%s): point the hosts' package sources at a repository that has them, or pick a version it offers", len(bad), hops)}
	case len(notRun) > 0:
		return Result{Check: CheckPackages, Status: Fail, Message: "cannot run on every host", Objects: append(notRun, lines...)}
	}
	return Result{Check: CheckPackages, Status: Pass, Objects: lines,
		Message: "every host's repositories offer the packages of " + hops + ", or the host has them installed"}
}

// allSkipped: the inventory says every host installs its own way.
func allSkipped(hosts []PackageHost) bool {
	return !slices.ContainsFunc(hosts, func(h PackageHost) bool { return h.Skip == "" })
}

// judgePackages is one host's problems and its installed packages, spelled for people.
func judgePackages(h PackageHost, secs map[string]section, hops []state.Version, kubeletsEachHop bool) ([]string, string) {
	mgr := firstLine(secs["mgr"].body)
	installed := installedIn(mgr, secs)
	spelled := make([]string, len(installed))
	for i, p := range installed {
		spelled[i] = p.String()
	}
	if s, ok := secs["source"]; ok {
		return []string{fmt.Sprintf("%s: %s: add the one of the Kubernetes install guide, or set kupgrade_kubeadm_install and kupgrade_kubelet_install", h.Name, firstLine(s.body))},
			strings.Join(spelled, ", ")
	}
	var bad []string
	for _, a := range h.asked(hops, kubeletsEachHop) {
		for _, p := range a.Packages {
			if !slices.ContainsFunc(installed, func(i Package) bool { return i.Name == p && i.Is(a.Version) }) {
				bad = append(bad, offerProblem(h.Name, mgr, p, a, secs)...)
			}
		}
	}
	return bad, strings.Join(spelled, ", ")
}

// offerProblem is nil when the hop's repository offers p at the hop's version, else the line
// naming host, package, version and the repository asked.
func offerProblem(host, mgr, p string, a HopPackages, secs map[string]section) []string {
	repo := cmp.Or(firstLine(secs["repo-"+a.minor()].body), "the "+a.minor()+" repository")
	if u, ok := secs["update-"+a.minor()]; ok && u.rc != 0 {
		return []string{fmt.Sprintf("%s: %s %s: the repository %s could not be read: %s", host, p, a.Version, repo, lastLine(u.body))}
	}
	s := secs["offered-"+a.minor()+"-"+p]
	vs := offeredVersions(mgr, p, s.body)
	if slices.ContainsFunc(vs, func(v string) bool { return versionIs(v, a.Version) }) {
		return nil
	}
	if s.rc != 0 && len(vs) == 0 && !strings.Contains(s.body, "No matching Packages") {
		return []string{fmt.Sprintf("%s: %s %s: the repository %s could not be read: %s", host, p, a.Version, repo, lastLine(s.body))}
	}
	return []string{fmt.Sprintf("%s: %s %s is not offered by the repository %s (it offers %s)", host, p, a.Version, repo, newestOffered(vs))}
}

// installedIn reads the installed packages from a script's sections.
func installedIn(mgr string, secs map[string]section) []Package {
	if mgr == managerApt {
		return dpkgInstalled(secs["installed"].body)
	}
	return rpmInstalled(secs["installed"].body, secs["held"].body)
}

// newestOffered spells what a repository offers for a refusal: its three newest, or none.
func newestOffered(vs []string) string {
	switch {
	case len(vs) == 0:
		return "no version of it"
	case len(vs) > 3:
		return strings.Join(vs[:3], ", ") + ", ..."
	}
	return strings.Join(vs, ", ")
}

func spellVersions(vs []state.Version) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}
