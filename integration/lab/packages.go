package lab

import (
	"context"
	"fmt"
	"strings"
)

// Package is what a node's (simulated) dpkg says of one of kubeadm, kubelet and kubectl.
type Package struct {
	Version string // Debian version, 1.30.1-1.1
	Held    bool
}

// K8sPackages are the packages the simulated apt keeps (see pkg.sh in the image).
var K8sPackages = []string{"kubeadm", "kubelet", "kubectl"}

// Packages reads the node's kubeadm, kubelet and kubectl packages through dpkg-query, as an
// operator would.
func (n *Node) Packages(ctx context.Context) (map[string]Package, error) {
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

// RepoMinor is the minor the node's Kubernetes package source names (v1.30), as the source line
// says it: core:/stable:/v1.30/deb/.
func (n *Node) RepoMinor(ctx context.Context) (string, error) {
	out, err := n.Exec(ctx, "cat", "/etc/apt/sources.list.d/kubernetes.list")
	if err != nil {
		return "", fmt.Errorf("read the package source of %s: %w", n.Name, err)
	}
	_, rest, ok := strings.Cut(out, "core:/stable:/")
	minor, _, _ := strings.Cut(rest, "/")
	if !ok || minor == "" {
		return "", fmt.Errorf("the package source of %s names no minor: %q", n.Name, out)
	}
	return minor, nil
}

// Withdraw removes version v (v1.30.2) of every package from its minor's repository: the lab's
// package server then offers no such release.
func (l *Lab) Withdraw(ctx context.Context, v string) error {
	minor := v[:strings.LastIndex(v, ".")]
	file := sharedDir + "/pkgs/core:/stable:/" + minor + "/deb/Packages"
	_, err := l.nodes[0].Exec(ctx, "sed", "-i", "/ "+strings.ReplaceAll(v[1:], ".", `\.`)+"-1\\.1$/d", file)
	if err != nil {
		return fmt.Errorf("withdraw %s from the lab's repository: %w", v, err)
	}
	return nil
}
