package sim

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Options describe a simulated fleet.
type Options struct {
	Clusters    int    // how many clusters
	Controllers int    // controllers per cluster (default 2)
	Workers     int    // workers per cluster (default 1)
	From, To    string // the version the clusters run, and the one their kubeadm reports
	Dir         string // where the inventories, the client key and known_hosts are written
	// LateFailure, when set, says which clusters (by index) get a late kubeadm failure: the
	// second controller's kubeadm fails once after its kubelet-config phase (LateFault).
	LateFailure func(i int) bool
	// KubeadmDelay is how long each `kubeadm upgrade` takes (0: no time), so that a test can
	// kill a runner while operations are in flight.
	KubeadmDelay time.Duration
}

// Fleet is a running simulated fleet.
type Fleet struct {
	Addr        string // the one listener, 127.0.0.1:PORT
	Inventories string // the folder of inventories, one per cluster (fleet run --inventories)
	KnownHosts  string
	KeyFile     string
	Clusters    []*Cluster
	opts        Options
	hosts       map[string]*Host // by login
	ln          net.Listener
	cfg         *ssh.ServerConfig
	conns       atomic.Int64
	wg          sync.WaitGroup
	mu          sync.Mutex
	open        map[net.Conn]bool
}

// Cluster is one simulated cluster: its hosts and its cluster version (kubeadm-config).
type Cluster struct {
	Name  string
	Hosts []*Host
	fleet *Fleet

	mu  sync.Mutex
	ver string
	uid string // its kube-system namespace's UID
}

// UID is the cluster's identity, as kubectl reads it: its kube-system namespace's UID.
func (c *Cluster) UID() string { return c.uid }

func (c *Cluster) version() string { c.mu.Lock(); defer c.mu.Unlock(); return c.ver }

func (c *Cluster) setVersion(v string) { c.mu.Lock(); defer c.mu.Unlock(); c.ver = v }

// LateFault is the seed's late kubeadm failure: an exit, once, right after the kubelet config
// was rewritten.
var LateFault = Fault{Phase: "kubelet-config", Action: Exit, Once: true}

// Start builds the fleet and starts its listener; Close stops it.
func Start(o Options) (*Fleet, error) {
	if o.Controllers <= 0 {
		o.Controllers = 2
	}
	if o.Workers < 0 {
		o.Workers = 0
	}
	f := &Fleet{opts: o, hosts: map[string]*Host{}, open: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	f.ln, f.Addr = ln, ln.Addr().String()
	if err := f.keys(); err != nil {
		ln.Close()
		return nil, err
	}
	f.build()
	if err := f.writeInventories(); err != nil {
		ln.Close()
		return nil, err
	}
	go f.accept()
	return f, nil
}

func (f *Fleet) build() {
	now := time.Now()
	width := len(fmt.Sprint(f.opts.Clusters - 1))
	for i := range f.opts.Clusters {
		c := &Cluster{Name: fmt.Sprintf("c%0*d", max(width, 4), i), fleet: f, ver: f.opts.From, uid: newUID()}
		for j := range f.opts.Controllers {
			c.Hosts = append(c.Hosts, newHost(c, fmt.Sprintf("controller-%d", j), true, f.opts.From, now))
		}
		for j := range f.opts.Workers {
			c.Hosts = append(c.Hosts, newHost(c, fmt.Sprintf("worker-%d", j), false, f.opts.From, now))
		}
		for _, h := range c.Hosts {
			f.hosts[h.Login] = h
		}
		if f.opts.LateFailure != nil && f.opts.LateFailure(i) && f.opts.Controllers > 1 {
			c.Hosts[1].InjectFault(LateFault) //nolint:errcheck // a valid fault
		}
		f.Clusters = append(f.Clusters, c)
	}
}

// keys writes the client key and known_hosts, and sets up the server's host key.
func (f *Fleet) keys() error {
	_, hostKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	_, clientKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	hs, err := ssh.NewSignerFromKey(hostKey)
	if err != nil {
		return err
	}
	cs, err := ssh.NewSignerFromKey(clientKey)
	if err != nil {
		return err
	}
	block, err := ssh.MarshalPrivateKey(clientKey, "")
	if err != nil {
		return err
	}
	f.KeyFile, f.KnownHosts = filepath.Join(f.opts.Dir, "id_ed25519"), filepath.Join(f.opts.Dir, "known_hosts")
	if err := os.WriteFile(f.KeyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		return err
	}
	line := knownhosts.Line([]string{knownhosts.Normalize(f.Addr)}, hs.PublicKey())
	if err := os.WriteFile(f.KnownHosts, []byte(line+"\n"), 0o600); err != nil {
		return err
	}
	allowed := string(cs.PublicKey().Marshal())
	f.cfg = &ssh.ServerConfig{PublicKeyCallback: func(m ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) != allowed {
			return nil, fmt.Errorf("key not authorized")
		}
		h, ok := f.hosts[m.User()]
		if !ok {
			return nil, fmt.Errorf("no host %q here", m.User())
		}
		if h.unreachable.Load() {
			f.cut(m.RemoteAddr())
			return nil, fmt.Errorf("host %q is unreachable", m.User())
		}
		return &ssh.Permissions{}, nil
	}}
	f.cfg.AddHostKey(hs)
	return nil
}

// writeInventories writes one inventory per cluster, as the lab writes its own.
func (f *Fleet) writeInventories() error {
	f.Inventories = filepath.Join(f.opts.Dir, "inventories")
	if err := os.MkdirAll(f.Inventories, 0o755); err != nil {
		return err
	}
	_, port, _ := net.SplitHostPort(f.Addr)
	for _, c := range f.Clusters {
		var b strings.Builder
		fmt.Fprintf(&b, "all:\n  vars:\n    ansible_host: 127.0.0.1\n    ansible_port: %s\n", port)
		fmt.Fprintf(&b, "    ansible_ssh_private_key_file: %q\n    ansible_become: true\n", f.KeyFile)
		fmt.Fprintf(&b, "    kupgrade_known_hosts: %q\n    kupgrade_cluster: %q\n", f.KnownHosts, c.Name)
		fmt.Fprintf(&b, "    kupgrade_kubelet_install: %q\n", "/usr/local/sbin/kupgrade-lab-kubelet install {{ to_version }}")
		fmt.Fprintf(&b, "    kupgrade_kubelet_restart: %q\n", "/usr/local/sbin/kupgrade-lab-kubelet restart")
		// The simulated hosts have no package manager: kubeadm is installed the lab's way (only
		// `kubeadm version` sees it), and no API server to drain through.
		fmt.Fprintf(&b, "    kupgrade_kubeadm_install: %q\n    kupgrade_drain: false\n", "/usr/local/sbin/kupgrade-lab-kubeadm install v$KUPGRADE_VERSION")
		groups := map[bool]*strings.Builder{true: {}, false: {}}
		for _, h := range c.Hosts {
			fmt.Fprintf(groups[h.Controller], "        %s: {ansible_user: %q}\n", h.Name, h.Login)
		}
		fmt.Fprintf(&b, "  children:\n    controllers:\n      hosts:\n%s", groups[true])
		if groups[false].Len() > 0 {
			fmt.Fprintf(&b, "    workers:\n      hosts:\n%s", groups[false])
		}
		if err := os.WriteFile(filepath.Join(f.Inventories, c.Name+".yml"), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Connections is how many SSH connections completed their handshake.
func (f *Fleet) Connections() int { return int(f.conns.Load()) }

// Close stops the listener and ends every connection.
func (f *Fleet) Close() {
	f.ln.Close()
	f.mu.Lock()
	for c := range f.open {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// newUID is a random UID in the API server's form (a version 4 UUID).
func newUID() string {
	var b [16]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand does not fail
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
