// Package contract is the one contract of kupgrade's two simulated nodes, the in-process one
// (internal/sim) and the Docker lab's (integration/lab): a table of cases, each a node's state, a
// command run as root over SSH, and what the command must print and leave on the node's disk.
// The simulator's tests run it against a simulated host, the integration tier against a lab
// node, so that the two cannot drift apart.
package contract

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/sim"
)

// Setup is a node's state before a case's command.
type Setup struct {
	Version string // the node's manifests, kubelet config and kubelet; default From
	Cluster string // the cluster's version (kubeadm-config); default Version
	Kubeadm string // the version the node's kubeadm package has; default Version
	Worker  bool   // no static-pod manifests
	Fault   *sim.Fault
}

// From is the version a case's node is at unless its Setup says otherwise.
const From = "v1.29.4"

func (s Setup) withDefaults() Setup {
	if s.Version == "" {
		s.Version = From
	}
	if s.Cluster == "" {
		s.Cluster = s.Version
	}
	if s.Kubeadm == "" {
		s.Kubeadm = s.Version
	}
	return s
}

// How a command ended.
const (
	Exited    = ""          // it ran to its end, with a status
	Lost      = "lost"      // the SSH connection dropped under it
	Cancelled = "cancelled" // the client gave up on it (Case.CancelOn)
)

// Want is what a case's command must end with and leave.
type Want struct {
	End    string // Exited, Lost or Cancelled
	Status int    // the exit status when Exited
	Out    []string
	Disk
}

// Disk is what matters of a node's disk after a command.
type Disk struct {
	Tags          string   // the image tag of every static-pod manifest; "" when there is none
	KubeletConfig string   // the version /var/lib/kubelet/config.yaml is written for
	Backups       []string // the kinds of kubeadm's folders in /etc/kubernetes/tmp, sorted
	Fault         bool     // a fault is still armed
}

// Case is one case of the contract.
type Case struct {
	Name    string
	Setup   Setup
	Command string // run as root with sh -c
	// CancelFired: the client gives up on the command once its fault has fired (a once fault:
	// its file is gone).
	CancelFired bool
	Want        Want
}

// Node is one implementation of the contract.
type Node interface {
	// Reset lays the node out as s says, no fault armed but s.Fault.
	Reset(ctx context.Context, s Setup) error
	// Target is the inventory file and the name of the node in it.
	Target() (inventory, host string)
	ReadFile(ctx context.Context, path string) (string, bool, error)
	ReadDir(ctx context.Context, path string) ([]string, error)
}

// Run runs every case on n, one after the other, each as a subtest.
func Run(t *testing.T, n Node) {
	for _, c := range Cases {
		t.Run(c.Name, func(t *testing.T) {
			for _, d := range Check(t.Context(), n, c) {
				t.Error(d)
			}
		})
	}
}

// Check runs c on n and returns how the outcome differs from c.Want.
func Check(ctx context.Context, n Node, c Case) []string {
	if err := n.Reset(ctx, c.Setup.withDefaults()); err != nil {
		return []string{"reset: " + err.Error()}
	}
	inv, host := n.Target()
	runCtx, cancel := context.WithTimeout(ctx, Bound)
	defer cancel()
	if c.CancelFired {
		go cancelWhenFired(runCtx, n, cancel)
	}
	res, err := RunSSH(runCtx, inv, host, c.Command)
	if err != nil {
		return []string{err.Error()}
	}
	disk, err := ReadDisk(ctx, n)
	if err != nil {
		return []string{"read the disk: " + err.Error()}
	}
	return diff(c.Want, res, disk)
}

// Bound is the longest a case's command may run: one that never ends fails its case rather than
// hanging the suite.
const Bound = 2 * time.Minute

// cancelWhenFired calls cancel once n's fault file is gone.
func cancelWhenFired(ctx context.Context, n Node, cancel func()) {
	for {
		if _, armed, err := n.ReadFile(ctx, sim.FaultFile); err == nil && !armed {
			cancel()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func diff(w Want, r Result, d Disk) []string {
	var out []string
	if r.End != w.End || (w.End == Exited && r.Status != w.Status) {
		out = append(out, fmt.Sprintf("ended %q with status %d, want %q with %d", r.End, r.Status, w.End, w.Status))
	}
	for _, re := range w.Out {
		if !regexp.MustCompile("(?m)" + re).MatchString(r.Output) {
			out = append(out, fmt.Sprintf("no line matches %q", re))
		}
	}
	if !slices.Equal(d.Backups, w.Backups) || d.Tags != w.Tags || d.KubeletConfig != w.KubeletConfig || d.Fault != w.Fault {
		out = append(out, fmt.Sprintf("disk %+v, want %+v", d, w.Disk))
	}
	if len(out) > 0 {
		out = append(out, "output:\n"+r.Output)
	}
	return out
}

// kinds are kubeadm's folders under /etc/kubernetes/tmp, as the disk is compared.
var kinds = []string{"kubeadm-backup-manifests", "kubeadm-kubelet-config", "kubeadm-upgraded-manifests"}

// backupKind is the kind of folder name (its prefix), or name itself.
func backupKind(name string) string {
	for _, k := range kinds {
		if strings.HasPrefix(name, k) {
			return k
		}
	}
	return name
}
