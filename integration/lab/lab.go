package lab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/ory/dockertest/v3"
	docker "github.com/ory/dockertest/v3/docker"
)

// Options describe a lab.
type Options struct {
	Controllers    int           // default 1
	Workers        int           // default 0
	FromVersion    string        // Kubernetes version the nodes start at; default DefaultVersion
	KubeadmVersion string        // what `kubeadm version` reports at start; default FromVersion
	Expire         time.Duration // containers stop on their own after this (0: never)
	// PackageManager is how the nodes install kubeadm, kubelet and kubectl: "apt" (the default:
	// an apt source line per node, held packages) or "dnf" (RPM hosts: the Kubernetes install
	// guide's /etc/yum.repos.d/kubernetes.repo with its exclude= hold, and ansible_pkg_mgr: dnf
	// in the inventory), the simulated apt or dnf reading the lab's per-minor repositories.
	PackageManager string
	Log            io.Writer // progress lines; default io.Discard
}

// DefaultVersion is the Kubernetes version a lab starts at unless told otherwise.
const DefaultVersion = "v1.29.4"

// sharedPath is where the volume shared by a lab's nodes (the cluster's API objects) is mounted.
const sharedPath = "/var/lib/kupgrade-lab/shared"

// Lab is a running lab: nodes on their own Docker network, sharing one volume.
type Lab struct {
	Name  string // kupgrade-lab-<random>, also the cluster name in the inventory
	Dir   string // inventory.yml, known_hosts, id_ed25519 and lab.json live here
	pool  *dockertest.Pool
	netID string
	nodes []*Node
	keys  *clientKey
	real  *realLab // nil in a simulated lab
}

// newLab is a lab named prefix plus a random suffix, its files in dir, with its Docker pool and
// SSH client key, after a sweep of the expired labs of earlier runs.
func newLab(ctx context.Context, prefix, dir string) (*Lab, error) {
	pool, err := newPool()
	if err != nil {
		return nil, err
	}
	sweepExpired(ctx, pool.Client)
	keys, err := newClientKey(dir)
	if err != nil {
		return nil, err
	}
	return &Lab{Name: prefix + randomHex(4), Dir: dir, pool: pool, keys: keys}, nil
}

// bringUp runs create, then writes the lab's files; on an error it removes whatever was started.
func (l *Lab) bringUp(ctx context.Context, create func() error) error {
	select {
	case starting <- struct{}{}:
		defer func() { <-starting }()
	case <-ctx.Done():
		return ctx.Err()
	}
	err := create()
	if err == nil {
		err = l.writeFiles()
	}
	if err != nil {
		_ = l.Purge(context.WithoutCancel(ctx))
	}
	return err
}

// starting bounds how many labs this process brings up at once: a node's first start (its
// packages and host key) is the busiest moment of a lab, and tests that run side by side would
// otherwise all start theirs together and starve each other on a small machine.
var starting = make(chan struct{}, 2)

// Up builds the image if needed, starts a lab and writes its files into dir. It returns once
// every node accepts an SSH login with the lab's key and presents the recorded host key.
func Up(ctx context.Context, opts Options, dir string) (*Lab, error) {
	opts = opts.withDefaults()
	if opts.PackageManager != AptManager && opts.PackageManager != DnfManager {
		return nil, fmt.Errorf("lab: package manager %q is not one the lab simulates (%s, %s)", opts.PackageManager, AptManager, DnfManager)
	}
	image, err := EnsureImage(ctx, opts.Log)
	if err != nil {
		return nil, err
	}
	l, err := newLab(ctx, "kupgrade-lab-", dir)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := l.bringUp(ctx, func() error { return l.create(ctx, opts, image) }); err != nil {
		return nil, err
	}
	fmt.Fprintf(opts.Log, "lab: %s up in %s (%d controllers, %d workers)\n",
		l.Name, time.Since(start).Round(100*time.Millisecond), opts.Controllers, opts.Workers)
	return l, nil
}

func (o Options) withDefaults() Options {
	if o.Controllers == 0 {
		o.Controllers = 1
	}
	if o.FromVersion == "" {
		o.FromVersion = DefaultVersion
	}
	if o.KubeadmVersion == "" {
		o.KubeadmVersion = o.FromVersion
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.PackageManager == "" {
		o.PackageManager = AptManager
	}
	return o
}

func (l *Lab) labels(expire time.Duration) map[string]string { return labelsOf(l.Name, expire) }

// labelsOf are the labels of everything a lab, MariaDB or Galera cluster named name starts:
// its name, and when expire > 0 the time after which sweepExpired removes it.
func labelsOf(name string, expire time.Duration) map[string]string {
	labels := map[string]string{LabelKey: name}
	if expire > 0 {
		labels[labelExpires] = strconv.FormatInt(time.Now().Add(expire).Unix(), 10)
	}
	return labels
}

// createNetwork makes the lab's bridge network.
func (l *Lab) createNetwork(ctx context.Context, labels map[string]string) error {
	network, err := l.pool.Client.CreateNetwork(docker.CreateNetworkOptions{
		Name: l.Name, Driver: "bridge", Labels: labels, Context: ctx,
	})
	if err != nil {
		return fmt.Errorf("create network %s: %w", l.Name, err)
	}
	l.netID = network.ID
	return nil
}

// create makes the network, the shared volume and the nodes (started in parallel).
func (l *Lab) create(ctx context.Context, opts Options, image string) error {
	labels := l.labels(opts.Expire)
	if err := l.createNetwork(ctx, labels); err != nil {
		return err
	}
	if _, err := l.pool.Client.CreateVolume(docker.CreateVolumeOptions{
		Name: l.Name + "-shared", Labels: labels, Context: ctx,
	}); err != nil {
		return fmt.Errorf("create volume %s-shared: %w", l.Name, err)
	}
	for i := range opts.Controllers {
		l.nodes = append(l.nodes, &Node{Name: fmt.Sprintf("controller-%d", i), Role: "controller", PackageManager: opts.PackageManager, lab: l})
	}
	for i := range opts.Workers {
		l.nodes = append(l.nodes, &Node{Name: fmt.Sprintf("worker-%d", i), Role: "worker", PackageManager: opts.PackageManager, lab: l})
	}
	errs := make([]error, len(l.nodes))
	var wg sync.WaitGroup
	for i, n := range l.nodes {
		wg.Go(func() { errs[i] = n.create(ctx, opts, image, labels) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Nodes returns the lab's nodes: controllers first, then workers.
func (l *Lab) Nodes() []*Node { return l.nodes }

// Node returns the node with that name (controller-0, worker-0, ...), or nil.
func (l *Lab) Node(name string) *Node {
	for _, n := range l.nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// Purge removes everything labelled with the lab's name: containers, network and volume.
func (l *Lab) Purge(ctx context.Context) error {
	return removeLabelled(ctx, l.pool.Client, l.Name)
}

// sweepExpired removes test labs whose expiry has passed (their test process died before its
// cleanup), so they do not pile up across runs.
func sweepExpired(ctx context.Context, client *docker.Client) {
	containers, err := client.ListContainers(docker.ListContainersOptions{
		All: true, Filters: map[string][]string{"label": {labelExpires}}, Context: ctx,
	})
	if err != nil {
		return
	}
	now := time.Now().Unix()
	for _, c := range containers {
		if at, err := strconv.ParseInt(c.Labels[labelExpires], 10, 64); err == nil && at < now {
			_ = removeLabelled(ctx, client, c.Labels[LabelKey])
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
