package lab

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Package is what a node's (simulated) dpkg or rpm says of one of kubeadm, kubelet and kubectl.
type Package struct {
	Version string // Debian version, 1.30.1-1.1; RPM version-release, 1.30.1-150500.1.1
	Held    bool   // apt-mark hold; on an RPM host, named by the repository's exclude= line
}

// K8sPackages are the packages the simulated apt and dnf keep (see pkg.sh in the image).
var K8sPackages = []string{"kubeadm", "kubelet", "kubectl"}

// The package managers a simulated lab's nodes can use (Options.PackageManager).
const (
	AptManager = "apt"
	DnfManager = "dnf"
)

// RPMRepoFile is an RPM host's Kubernetes repository file, as the install guide writes it.
const RPMRepoFile = "/etc/yum.repos.d/kubernetes.repo"

// Packages reads the node's kubeadm, kubelet and kubectl packages as an operator would: through
// dpkg-query, or on an RPM host rpm -q and the repository file's exclude= line.
func (n *Node) Packages(ctx context.Context) (map[string]Package, error) {
	if n.PackageManager == DnfManager {
		return n.rpmPackages(ctx)
	}
	args := append([]string{"dpkg-query", "-W", "-f", `${Package} ${Version} ${Status}\n`}, K8sPackages...)
	out, err := n.Exec(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("read packages of %s: %w", n.Name, err)
	}
	pkgs := map[string]Package{}
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		pkgs[f[0]] = Package{Version: f[1], Held: f[2] == "hold"}
	}
	return pkgs, nil
}

func (n *Node) rpmPackages(ctx context.Context) (map[string]Package, error) {
	args := append([]string{"rpm", "-q", "--qf", `%{NAME} %{VERSION}-%{RELEASE}\n`}, K8sPackages...)
	out, err := n.Exec(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("read packages of %s: %w", n.Name, err)
	}
	repo, err := n.Exec(ctx, "cat", RPMRepoFile)
	if err != nil {
		return nil, fmt.Errorf("read the repository file of %s: %w", n.Name, err)
	}
	var excluded []string
	for line := range strings.Lines(repo) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "exclude="); ok {
			excluded = append(excluded, strings.Fields(v)...)
		}
	}
	pkgs := map[string]Package{}
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) == 2 {
			pkgs[f[0]] = Package{Version: f[1], Held: slices.Contains(excluded, f[0])}
		}
	}
	return pkgs, nil
}

// RepoMinor is the minor the node's Kubernetes package source names (v1.30), as the source line
// says it (core:/stable:/v1.30/deb/), or on an RPM host every core:/stable: URL of its
// repository file (baseurl and gpgkey: .../v1.30/rpm/); an RPM host whose URLs disagree is an
// error.
func (n *Node) RepoMinor(ctx context.Context) (string, error) {
	file, kind := "/etc/apt/sources.list.d/kubernetes.list", "deb"
	if n.PackageManager == DnfManager {
		file, kind = RPMRepoFile, "rpm"
	}
	out, err := n.Exec(ctx, "cat", file)
	if err != nil {
		return "", fmt.Errorf("read the package source of %s: %w", n.Name, err)
	}
	minor := ""
	for _, part := range strings.Split(out, "core:/stable:/")[1:] {
		m, rest, _ := strings.Cut(part, "/")
		if (minor != "" && m != minor) || !strings.HasPrefix(rest, kind+"/") {
			return "", fmt.Errorf("the package source of %s names more than one minor or no %s repository: %q", n.Name, kind, out)
		}
		minor = m
	}
	if minor == "" {
		return "", fmt.Errorf("the package source of %s names no minor: %q", n.Name, out)
	}
	return minor, nil
}

// Withdraw removes version v (v1.30.2) of every package from its minor's repositories (deb and
// rpm): the lab's package server then offers no such release.
func (l *Lab) Withdraw(ctx context.Context, v string) error {
	repo := sharedDir + "/pkgs/core:/stable:/" + v[:strings.LastIndex(v, ".")]
	release := strings.ReplaceAll(v[1:], ".", `\.`)
	_, err := l.nodes[0].Exec(ctx, "sed", "-i", "/ "+release+`-1\.1$/d; / `+release+`-150500\.1\.1$/d`,
		repo+"/deb/Packages", repo+"/rpm/repodata/primary")
	if err != nil {
		return fmt.Errorf("withdraw %s from the lab's repository: %w", v, err)
	}
	return nil
}
