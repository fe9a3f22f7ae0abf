package health

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
)

// What `apt-cache madison` and `dnf list --showduplicates` print, as the check reads them.
const (
	madisonKubeadm = `   kubeadm | 1.31.2-1.1 | https://pkgs.k8s.io/core:/stable:/v1.31/deb  Packages
   kubeadm | 1.31.1-1.1 | https://pkgs.k8s.io/core:/stable:/v1.31/deb  Packages
   kubeadm | 1.31.0-1.1 | https://pkgs.k8s.io/core:/stable:/v1.31/deb  Packages`
	dnfKubeadm = `Installed Packages
kubeadm.x86_64                 1.30.14-150500.1.1                 @kubernetes
Available Packages
kubeadm.x86_64                 1.31.0-150500.1.1                  kubernetes
kubeadm.aarch64                1.31.1-150500.1.1                  kubernetes`
)

func TestOfferedVersions(t *testing.T) {
	if got, want := offeredVersions("apt", "kubeadm", madisonKubeadm), []string{"1.31.2-1.1", "1.31.1-1.1", "1.31.0-1.1"}; !slices.Equal(got, want) {
		t.Errorf("madison: %q, want %q", got, want)
	}
	if got := offeredVersions("apt", "kubelet", madisonKubeadm); got != nil {
		t.Errorf("madison of kubeadm read as the kubelet's: %q", got)
	}
	if got, want := offeredVersions("dnf", "kubeadm", dnfKubeadm), []string{"1.30.14-150500.1.1", "1.31.0-150500.1.1", "1.31.1-150500.1.1"}; !slices.Equal(got, want) {
		t.Errorf("dnf list: %q, want %q", got, want)
	}
	if !versionIs("0:1.31.1-150500.1.1", v(t, "v1.31.1")) || versionIs("1.31.10-1.1", v(t, "v1.31.1")) {
		t.Error("versionIs: an epoch must not matter, and 1.31.10 is not v1.31.1")
	}
}

// The installed packages and their holds: dpkg's selection on apt; versionlock and exclude= on
// dnf and yum. A package that is not installed is left out.
func TestParseInstalled(t *testing.T) {
	apt := sectionMark + "mgr rc=0\napt\n" + sectionMark + "installed rc=1\n" +
		"kubeadm 1.30.1-1.1 hold ok installed\nkubelet 1.30.1-1.1 install ok installed\ndpkg-query: no packages found matching kubectl\n"
	got, err := ParseInstalled(apt)
	want := []Package{{"kubeadm", "1.30.1-1.1", true}, {"kubelet", "1.30.1-1.1", false}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("apt: %v, %v; want %v", got, err, want)
	}
	dnf := sectionMark + "mgr rc=0\ndnf\n" + sectionMark + "installed rc=1\n" +
		"kubeadm 1.30.1-150500.1.1\nkubelet 1.30.1-150500.1.1\npackage kubectl is not installed\n" +
		sectionMark + "held rc=0\nkubeadm-0:1.30.1-150500.1.1.*\n"
	got, err = ParseInstalled(dnf)
	want = []Package{{"kubeadm", "1.30.1-150500.1.1", true}, {"kubelet", "1.30.1-150500.1.1", false}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("dnf: %v, %v; want %v", got, err, want)
	}
	got, _ = ParseInstalled(strings.Replace(dnf, "kubeadm-0:1.30.1-150500.1.1.*", "kubelet kubeadm kubectl cri-tools", 1))
	if len(got) != 2 || !got[0].Held || !got[1].Held {
		t.Errorf("an exclude= line holds what it names: %v", got)
	}
	if _, err := ParseInstalled(sectionMark + "mgr rc=0\nzypper\n"); err == nil || !strings.Contains(err.Error(), "zypper") {
		t.Errorf("a package manager kupgrade does not read: %v, want an error naming it", err)
	}
	if s := (Package{"kubeadm", "1.30.1-1.1", true}).String(); s != "kubeadm 1.30.1-1.1 (held)" {
		t.Errorf("Package.String: %q", s)
	}
}

// hostPackages is OfferedScript's output on an apt host with kubeadm, kubelet and kubectl at
// 1.30.14 (held), whose repositories offer every patch of v1.31 up to v1.31.2 and of v1.32 up
// to v1.32.3.
func hostPackages(repoFails bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%smgr rc=0\napt\n%sinstalled rc=0\n", sectionMark, sectionMark)
	for _, p := range []string{"kubeadm", "kubelet", "kubectl"} {
		fmt.Fprintf(&b, "%s 1.30.14-1.1 hold ok installed\n", p)
	}
	for minor, top := range map[string]int{"v1.31": 2, "v1.32": 3} {
		fmt.Fprintf(&b, "%srepo-%s rc=0\nfile:/pkgs/core:/stable:/%s/deb/\n", sectionMark, minor, minor)
		rc := 0
		if repoFails && minor == "v1.32" {
			rc = 100
		}
		fmt.Fprintf(&b, "%supdate-%s rc=%d\nE: Failed to fetch %s\n", sectionMark, minor, rc, minor)
		for _, p := range []string{"kubeadm", "kubelet", "kubectl"} {
			fmt.Fprintf(&b, "%soffered-%s-%s rc=0\n", sectionMark, minor, p)
			for patch := top; patch >= 0; patch-- {
				fmt.Fprintf(&b, "   %s | %s.%d-1.1 | file:/pkgs/core:/stable:/%s/deb Packages\n", p, strings.TrimPrefix(minor, "v"), patch, minor)
			}
		}
	}
	return b.String()
}

func TestPackagesCheck(t *testing.T) {
	hosts := []PackageHost{
		{Name: "controller-0", Kubeadm: true, Kubelets: true, Packages: []string{"kubeadm", "kubelet", "kubectl"}},
		{Name: "worker-0", Skip: "kupgrade_install_packages is false"},
	}
	facts := func(hops ...string) Facts {
		f := Facts{Packages: map[string]string{"controller-0": hostPackages(false)}}
		for _, h := range hops {
			f.Hops = append(f.Hops, v(t, h))
		}
		return f
	}
	r := packagesCheck(facts("v1.31.2", "v1.32.3"), Options{Packages: hosts})
	if r.Status != Pass || !slices.Contains(r.Objects, "worker-0: not checked: kupgrade_install_packages is false") ||
		!slices.ContainsFunc(r.Objects, func(o string) bool { return strings.Contains(o, "controller-0: installed kubeadm 1.30.14-1.1 (held)") }) {
		t.Errorf("offered hops: %s, want pass naming the installed versions and the host not checked", r)
	}
	r = packagesCheck(facts("v1.30.14"), Options{Packages: hosts})
	if r.Status != Pass {
		t.Errorf("the version installed already, no repository asked: %s, want pass", r)
	}
	r = packagesCheck(facts("v1.31.99"), Options{Packages: hosts})
	want := "controller-0: kubeadm v1.31.99 is not offered by the repository file:/pkgs/core:/stable:/v1.31/deb/ (it offers 1.31.2-1.1, 1.31.1-1.1, 1.31.0-1.1)"
	if r.Status != Fail || len(r.Objects) != 3 || r.Objects[0] != want {
		t.Errorf("a version no repository offers: %s\nwant fail, first naming %q", r, want)
	}
	f := facts("v1.31.2", "v1.32.3")
	f.Packages["controller-0"] = hostPackages(true)
	r = packagesCheck(f, Options{Packages: hosts})
	if r.Status != Fail || !strings.Contains(strings.Join(r.Objects, "\n"), "controller-0: kubeadm v1.32.3: the repository file:/pkgs/core:/stable:/v1.32/deb/ could not be read: E: Failed to fetch v1.32") {
		t.Errorf("a repository apt cannot read: %s", r)
	}
	f.Packages["controller-0"] = sectionMark + "mgr rc=127\nssh: connection refused\n"
	if r = packagesCheck(f, Options{Packages: hosts}); r.Status != Fail || !strings.Contains(r.Objects[0], "controller-0: cannot run: ssh: connection refused") {
		t.Errorf("a host that cannot be asked: %s, want fail naming it", r)
	}
	f.Packages["controller-0"] = sectionMark + "mgr rc=0\napt\n" + sectionMark + "installed rc=0\n\n" + sectionMark + "source rc=1\nno apt source names a Kubernetes package repository\n"
	if r = packagesCheck(f, Options{Packages: hosts}); r.Status != Fail || !strings.Contains(r.Objects[0], "controller-0: no apt source names") {
		t.Errorf("a host with no Kubernetes repository: %s, want fail naming it", r)
	}
	own := []PackageHost{hosts[1], {Name: "worker-1", Skip: "kupgrade_install_packages is false"}}
	if r = packagesCheck(Facts{}, Options{Packages: own}); r.Status != Pass || r.Message != "not checked: every host installs the packages its own way" {
		t.Errorf("every host installing its own way: %s, want a pass saying nothing was checked", r)
	}
}

// Run asks every host not skipped, at the hops Options.Hops plans from the control plane's
// version read from the cluster: kubeadm at every hop, the kubelet and kubectl at the last when
// the skew allows them to wait.
func TestRunAsksPackagesAtEachHop(t *testing.T) {
	var scripts []string
	exec := func(_ context.Context, host, script string) (string, error) {
		if strings.Contains(script, "offered-") {
			scripts = append(scripts, host+": "+script[strings.LastIndex(script, "esac\n")+5:])
			return hostPackages(false), nil
		}
		if script == ClusterScript {
			return clusterOutput(nil), nil
		}
		return "", nil
	}
	var from state.Version
	o := Options{To: v(t, "v1.32.3"), Skip: []string{CheckEtcd, CheckCerts},
		Packages: []PackageHost{{Name: "worker-0", Kubeadm: true, Kubelets: true}, {Name: "worker-1", Skip: "own install"}},
		Hops: func(f state.Version) ([]state.Version, error) {
			from = f
			return []state.Version{v(t, "v1.31.2"), v(t, "v1.32.3")}, nil
		}}
	rs, err := Run(t.Context(), exec, []string{"controller-0"}, o)
	if err != nil {
		t.Fatal(err)
	}
	if from != v(t, "v1.30.14") {
		t.Errorf("hops planned from %s, want the control plane's v1.30.14", from)
	}
	want := []string{"worker-0: ask 'v1.31' 'kubeadm'\nask 'v1.32' 'kubeadm kubelet kubectl'\n"}
	if !slices.Equal(scripts, want) {
		t.Errorf("asked %q, want %q", scripts, want)
	}
	if r := rs[len(rs)-1]; r.Check != CheckPackages || r.Status != Pass {
		t.Errorf("last line %s, want the packages check passing", r)
	}
}
