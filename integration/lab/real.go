package lab

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ory/dockertest/v3"
	docker "github.com/ory/dockertest/v3/docker"
)

// RealOptions describe a real lab: a kubeadm cluster at the first of its versions with
// external etcd, its Kubernetes packages installed from the lab's repositories and held.
type RealOptions struct {
	Versions    []string      // in order, at least two; default RealVersions
	Pristine    bool          // install no next kubeadm (see UpReal)
	Controllers int           // default 2
	Workers     int           // default 1
	Expire      time.Duration // test labs: swept by a later lab start after this (0: never)
	Log         io.Writer     // progress lines; default io.Discard
	// IfBuilt lets a test run without KUPGRADE_FULL where the real lab is already built on the
	// machine (RealCached): make test runs the multi-minor upgrade there, and builds nothing.
	IfBuilt bool
}

// realLab is what a real lab adds to a lab: its build, the external etcd host, the package
// server and the API server's port.
type realLab struct {
	build   RealBuild
	etcd    *Node  // the external etcd's host (real_etcd.go)
	pkgsID  string // the package server's container
	apiPort int    // controller-0's 6443, published on 127.0.0.1
	token   string
	certKey string
}

// UpReal builds the real lab if needed (EnsureReal), starts the external etcd host (EtcdHost),
// the package server and the nodes, installs kubeadm, kubelet and kubectl of the first version
// from the lab's apt repository of its minor and holds them, runs kubeadm init on controller-0
// (etcd external at the etcd host's address), kubeadm join
// --control-plane on the other controllers and kubeadm join on the workers, and writes the lab's
// files into dir, admin.conf included. Unless opts.Pristine, it then installs the next version's
// kubeadm everywhere (as a platform does before an upgrade starts), which points the nodes' apt
// source at the next minor; a pristine lab leaves the packages and sources as kubeadm init
// found them.
func UpReal(ctx context.Context, opts RealOptions, dir string) (*Lab, error) {
	if opts.Controllers == 0 {
		opts.Controllers = 2
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if len(opts.Versions) == 0 {
		opts.Versions = RealVersions
	}
	b, err := EnsureReal(ctx, opts.Versions, opts.Log)
	if err != nil {
		return nil, err
	}
	l, err := newLab(ctx, "kupgrade-lab-real-", dir)
	if err != nil {
		return nil, err
	}
	l.real = &realLab{build: b, token: randomToken(), certKey: randomHex(32)}
	start := time.Now()
	if err := l.bringUp(ctx, func() error { return l.createReal(ctx, opts) }); err != nil {
		return nil, err
	}
	fmt.Fprintf(opts.Log, "lab: real lab %s up in %s (%d controllers, %d workers, %s, then %s)\n",
		l.Name, time.Since(start).Round(100*time.Millisecond), opts.Controllers, opts.Workers, b.From,
		strings.Join(b.Versions[1:], ", "))
	return l, nil
}

func (l *Lab) createReal(ctx context.Context, opts RealOptions) error {
	labels := l.labels(opts.Expire)
	if err := l.createNetwork(ctx, labels); err != nil {
		return err
	}
	if err := l.startEtcd(ctx, labels); err != nil {
		return err
	}
	if err := l.startPackages(ctx, labels); err != nil {
		return err
	}
	for i := range opts.Controllers {
		l.nodes = append(l.nodes, &Node{Name: fmt.Sprintf("controller-%d", i), Role: "controller", lab: l})
	}
	for i := range opts.Workers {
		l.nodes = append(l.nodes, &Node{Name: fmt.Sprintf("worker-%d", i), Role: "worker", lab: l})
	}
	if err := l.eachNode(func(i int, n *Node) error { return n.startReal(ctx, i, labels) }); err != nil {
		return err
	}
	step := time.Now()
	if err := l.eachNode(func(_ int, n *Node) error { return n.importImages(ctx) }); err != nil {
		return err
	}
	fmt.Fprintf(opts.Log, "lab: images of %s imported into every node's containerd in %s\n",
		strings.Join(l.real.build.Versions, ", "), time.Since(step).Round(100*time.Millisecond))
	if err := l.installPackages(ctx, opts.Log); err != nil {
		return err
	}
	return l.kubeadmCluster(ctx, opts)
}

// eachNode runs f on every node at once and returns the first error.
func (l *Lab) eachNode(f func(int, *Node) error) error {
	errs := make([]error, len(l.nodes))
	var wg sync.WaitGroup
	for i, n := range l.nodes {
		wg.Go(func() { errs[i] = f(i, n) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// dockerRun starts a detached container with the docker CLI (the API client of this module
// cannot ask for a private cgroup namespace) and returns its ID.
func dockerRun(ctx context.Context, name, hostname, network string, labels map[string]string, flags []string, image string, cmd ...string) (string, error) {
	args := []string{"run", "-d", "--name", name, "--hostname", hostname, "--network", network}
	for k, v := range labels {
		args = append(args, "--label", k+"="+v)
	}
	args = append(append(append(args, flags...), image), cmd...)
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("docker run %s: %w: %s", name, err, strings.TrimSpace(string(out)))
	}
	lines := strings.Fields(string(out))
	return lines[len(lines)-1], nil
}

func (l *Lab) containerIP(id string) (string, error) {
	c, err := l.pool.Client.InspectContainer(id)
	if err != nil {
		return "", fmt.Errorf("inspect container %s: %w", id, err)
	}
	for _, n := range c.NetworkSettings.Networks {
		if n.IPAddress != "" {
			return n.IPAddress, nil
		}
	}
	return "", fmt.Errorf("container %s has no address on %s", c.Name, l.Name)
}

// realNodeFlags make a container a Kubernetes node on this machine, where --privileged fails
// (it asks for CAP_SYS_RESOURCE, which the sandbox lacks): every other capability, no seccomp,
// AppArmor or masked /proc paths, every device, /dev/kmsg for the kubelet, its own cgroup
// namespace (the entry point remounts the hierarchies read-write), and volumes for containerd's
// snapshots and the kubelet's pods (overlayfs cannot stack on the engine's fuse-overlayfs).
func (l *Lab) realNodeFlags() []string {
	b := l.real.build
	return []string{
		"--cap-add", "ALL", "--cap-drop", "SYS_RESOURCE",
		"--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
		"--security-opt", "systempaths=unconfined", "--device-cgroup-rule", "a *:* rwm",
		"--device", "/dev/kmsg", "--cgroupns", "private", "--tmpfs", "/run", "--tmpfs", "/tmp",
		"-v", "/var/lib/containerd", "-v", "/var/lib/kubelet",
		"-v", b.BinDir + ":/opt/kupgrade-real/bin:ro", "-v", b.ImageDir + ":/opt/kupgrade-real/images:ro",
	}
}

func (n *Node) startReal(ctx context.Context, i int, labels map[string]string) error {
	l := n.lab
	var err error
	if n.Port, err = freePort(); err != nil {
		return err
	}
	flags := append(l.realNodeFlags(), "-p", fmt.Sprintf("127.0.0.1:%d:22", n.Port),
		"-e", "LAB_ROLE="+n.Role, "-e", "LAB_VERSION="+l.real.build.From, "-e", "LAB_PACKAGES="+packagesHost,
		"-e", fmt.Sprintf("LAB_POD_SUBNET=10.244.%d.0/24", i), "-e", "LAB_AUTHORIZED_KEY="+l.keys.authorized)
	if i == 0 {
		if l.real.apiPort, err = freePort(); err != nil {
			return err
		}
		flags = append(flags, "-p", fmt.Sprintf("127.0.0.1:%d:6443", l.real.apiPort))
	}
	if n.Role == "controller" {
		flags = append(flags, "--network-alias", apiEndpoint)
	}
	id, err := dockerRun(ctx, l.Name+"-"+n.Name, n.Name, l.Name, labels, flags, l.real.build.NodeImage)
	if err != nil {
		return fmt.Errorf("start node %s: %w", n.Name, err)
	}
	n.res = &dockertest.Resource{Container: &docker.Container{ID: id}}
	if n.Address, err = l.containerIP(id); err != nil {
		return err
	}
	return n.waitReady(ctx)
}

// importImages loads every version's image archive into the node's containerd: the lab's
// stand-in for a registry mirror that holds them. It waits for containerd first.
func (n *Node) importImages(ctx context.Context) error {
	if err := n.waitFor(ctx, time.Minute, "ctr", "version"); err != nil {
		return fmt.Errorf("containerd on %s: %w", n.Name, err)
	}
	b := n.lab.real.build
	for _, v := range b.Versions {
		archive := "/opt/kupgrade-real/images/images-" + v + ".tar"
		if _, err := n.Exec(ctx, "ctr", "-n", "k8s.io", "images", "import", "--no-unpack", archive); err != nil {
			return fmt.Errorf("import %s on %s: %w", archive, n.Name, err)
		}
	}
	return nil
}

// waitFor runs cmd on the node until it succeeds or limit passes.
func (n *Node) waitFor(ctx context.Context, limit time.Duration, cmd ...string) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		_, err := n.Exec(ctx, cmd...)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not succeed within %s: %w", strings.Join(cmd, " "), limit, err)
		case <-time.After(time.Second):
		}
	}
}

// APIPort is where the real lab's API server (controller-0's) answers on 127.0.0.1; 0 in a
// simulated lab.
func (l *Lab) APIPort() int {
	if l.real == nil {
		return 0
	}
	return l.real.apiPort
}

// Kubectl is the path of a kubectl built for the real lab ("" in a simulated lab), the middle
// version's, within one minor of every version the lab runs; with Kubeconfig it talks to the
// lab's API server from this machine.
func (l *Lab) Kubectl() string {
	if l.real == nil {
		return ""
	}
	return filepath.Join(l.real.build.BinDir, l.real.build.Versions[len(l.real.build.Versions)/2], "kubectl")
}

// Kubeconfig is the real lab's admin kubeconfig, pointed at 127.0.0.1.
func (l *Lab) Kubeconfig() string { return l.path(KubeconfigFile) }

// KubeconfigFile is the real lab's admin kubeconfig in the lab's folder.
const KubeconfigFile = "admin.conf"

func randomToken() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 22)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:6]) + "." + string(b[6:22])
}

// KubectlRun runs the lab's kubectl against its API server from this machine and returns its
// combined output.
func (l *Lab) KubectlRun(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, l.Kubectl(), append([]string{"--kubeconfig", l.Kubeconfig()}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, tail(string(out), 10))
	}
	return string(out), nil
}

// RealInstallCommand installs Kubernetes packages at a version on a real lab node from the lab's
// apt repositories, as the community packages are installed (kupgrade-real-install
// kubeadm|kubelet|kubectl... VERSION: the source's minor rewritten, unhold, install, hold).
const RealInstallCommand = "/usr/local/sbin/kupgrade-real-install"

// realImagesPlaybook replaces download-images in a real lab, which has no registry to pull
// from: the images of every version it knows are imported when it starts, and the step checks
// that each image `kubeadm config images list` names for the target is in the node's
// containerd (external etcd: no etcd image).
const realImagesPlaybook = "download-images.yml"

const realImagesCheck = `# kupgrade real lab: download-images without a registry. Every image of the lab's versions is
# imported into each node's containerd when the lab starts; this checks that the images of this
# hop and of every later one (image_versions) are there.
- name: Check the control-plane images of {{ to_version }}
  hosts: controllers
  become: true
  gather_facts: false
  tasks:
    - name: every image kubeadm lists is in containerd
      shell: "for i in $(kubeadm config images list --kubernetes-version {{ item }} | grep -v /etcd:); do crictl inspecti -q $i >/dev/null || { echo \"missing image $i\" >&2; exit 1; }; done"
      loop: "{{ image_versions | default([to_version]) }}"
      changed_when: false
`
