package lab

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// packagesHost is the package server's name on the lab network: the nodes' apt source is
// http://packagesHost/core:/stable:/v1.Y/deb/, the community packages' layout of one
// repository per minor.
const packagesHost = "kube-packages"

// startPackages runs the lab's package server: the node image serving the packages built for
// the lab (RealBuild.PkgDir) over plain HTTP on the lab network, as a site's package mirror.
func (l *Lab) startPackages(ctx context.Context, labels map[string]string) error {
	const dir = "/opt/kupgrade-real/pkgs"
	flags := []string{"--network-alias", packagesHost, "-v", l.real.build.PkgDir + ":" + dir + ":ro"}
	id, err := dockerRun(ctx, l.Name+"-packages", packagesHost, l.Name, labels, flags, l.real.build.NodeImage,
		dir+"/bin/serve", dir+"/repo", ":80")
	if err != nil {
		return fmt.Errorf("start the package server: %w", err)
	}
	l.real.pkgsID = id
	return nil
}

// installPackages installs kubeadm, kubelet and kubectl of the first version on every node from
// the package server, holding them, as an operator prepares a node for kubeadm init.
func (l *Lab) installPackages(ctx context.Context, log io.Writer) error {
	start := time.Now()
	v := l.real.build.From
	err := l.eachNode(func(_ int, n *Node) error {
		if out, err := n.Exec(ctx, RealInstallCommand, "kubeadm", "kubelet", "kubectl", v); err != nil {
			return fmt.Errorf("install the packages of %s on %s: %w\n%s", v, n.Name, err, tail(out, 20))
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "lab: kubeadm, kubelet and kubectl %s installed from packages and held on %d nodes in %s\n",
		v, len(l.nodes), time.Since(start).Round(100*time.Millisecond))
	return nil
}

// PackageRequests are the requests the real lab's package server answered, one line each
// ("GET /core:/stable:/v1.31/deb/Packages 200"), oldest first; an error in a simulated lab.
func (l *Lab) PackageRequests(ctx context.Context) ([]string, error) {
	if l.real == nil || l.real.pkgsID == "" {
		return nil, fmt.Errorf("package requests: %s has no package server (not a real lab)", l.Name)
	}
	out, err := exec.CommandContext(ctx, "docker", "logs", l.real.pkgsID).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("docker logs %s-packages: %w: %s", l.Name, err, tail(string(out), 5))
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// log.Printf's date and time come first.
		if f := strings.Fields(line); len(f) >= 5 {
			lines = append(lines, strings.Join(f[2:], " "))
		}
	}
	return lines, nil
}
