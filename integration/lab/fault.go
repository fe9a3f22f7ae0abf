package lab

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FaultFile is where the simulated kubeadm, apt-get, kubectl and etcdctl look for a fault on a
// node.
const FaultFile = "/etc/kupgrade-lab/fault"

// Phases are the phases a fault can name: kubeadm upgrade's, in the order they run (config is
// its read of the kubeadm-config ConfigMap: an Exit there prints the Forbidden of an API server
// restarted a moment before, whose caches are not synced yet; nothing changed); then the
// simulated apt-get install's (apt-download: nothing changed yet; dpkg-unpack: the package is
// unpacked, so an exit or a kill leaves dpkg interrupted until `dpkg --configure -a`); the
// simulated dnf install's (dnf-download: nothing changed yet); then the simulated kubectl drain's (evict: the node is cordoned, no pod evicted yet); then the
// simulated kubelet's restart posting its node status (kubelet-status, with Stale only); then the
// simulated etcdctl snapshot save's (PhaseEtcdSnapshot).
var Phases = []string{"config", "preflight", "control-plane", "kubelet-config", "addon", "post-upgrade",
	"apt-download", "dpkg-unpack", "dnf-download", "evict", PhaseKubeletStatus, PhaseEtcdSnapshot}

// PhaseEtcdSnapshot is etcdctl snapshot save FILE: Before fires once FILE.part is created and
// nothing is fetched yet, after once FILE.part is written, before its rename to FILE. An Exit
// there removes FILE.part and prints etcdctl's error for a snapshot stream that broke.
const PhaseEtcdSnapshot = "etcd-snapshot"

// PhaseKubeletStatus is the kubelet's restart posting the node's status (its kubelet version).
const PhaseKubeletStatus = "kubelet-status"

// Action is what a fault does when it fires.
type Action string

const (
	// Exit makes kubeadm exit with Fault.Status, printing kubeadm's "error execution phase".
	Exit Action = "exit"
	// Hang makes kubeadm wait forever; it dies on SIGTERM, SIGHUP or SIGINT, or within a second
	// of the SSH session that started it going away.
	Hang Action = "hang"
	// Drop kills the sshd processes serving the session: the client's connection drops and
	// kubeadm stops there.
	Drop Action = "drop"
	// Delay makes kubeadm wait Fault.Seconds (dying as Hang does if signalled or orphaned), then
	// go on as if nothing happened: a slow kubeadm, to fault the rest of the world meanwhile.
	Delay Action = "delay"
	// Stale, in PhaseKubeletStatus only, keeps the node's status at the kubelet version it
	// reported before: the kubelet restarts at its new version, and the API server still lists
	// the old one (until the fault is cleared and the kubelet restarted).
	Stale Action = "stale"
)

// Fault is one injected failure of the simulated kubeadm on one node.
type Fault struct {
	Phase   string // one of Phases
	Before  bool   // fire when the phase starts (nothing of it done) instead of after it ends
	Action  Action
	Status  int  // exit status for Exit; default 1
	Seconds int  // how long Delay waits; default 10
	Once    bool // removed when it fires, so a retry succeeds
	// Check names the preflight check an Exit in preflight fails ([ERROR Check], as kubeadm
	// prints it); default LabFault, a check no real kubeadm has.
	Check string
}

// Validate reports a fault that kubeadm could not fire.
func (f Fault) Validate() error {
	if !slices.Contains(Phases, f.Phase) {
		return fmt.Errorf("fault phase %q: want one of %s", f.Phase, strings.Join(Phases, ", "))
	}
	if f.Check != "" && (f.Phase != "preflight" || f.Action != Exit || strings.ContainsAny(f.Check, "\n=]")) {
		return fmt.Errorf("fault check %q: only an exit in preflight names a check, one word", f.Check)
	}
	if (f.Phase == PhaseKubeletStatus) != (f.Action == Stale) {
		return fmt.Errorf("fault %s in %s: a stale node status is the only fault of phase %s", f.Action, f.Phase, PhaseKubeletStatus)
	}
	switch f.Action {
	case Exit:
		if f.Status < 0 || f.Status > 255 {
			return fmt.Errorf("fault exit status %d: want 0-255", f.Status)
		}
	case Hang, Drop, Stale:
	case Delay:
		if f.Seconds < 0 {
			return fmt.Errorf("fault delay %d s: want 0 or more", f.Seconds)
		}
	default:
		return fmt.Errorf("fault action %q: want exit, hang, drop, delay or stale", f.Action)
	}
	return nil
}

// String is the fault file's content (see fault.sh in the image for the reader).
func (f Fault) String() string {
	when := "after"
	if f.Before {
		when = "in"
	}
	status := f.Status
	if status == 0 {
		status = 1
	}
	delay := ""
	if f.Action == Delay {
		seconds := f.Seconds
		if seconds == 0 {
			seconds = 10
		}
		delay = fmt.Sprintf("seconds=%d\n", seconds)
	}
	check := ""
	if f.Check != "" {
		check = "check=" + f.Check + "\n"
	}
	return fmt.Sprintf("%s=%s\naction=%s\nstatus=%d\n%s%sonce=%s\n",
		when, f.Phase, f.Action, status, delay, check, strconv.FormatBool(f.Once))
}

// InjectFault arms f on the node, replacing any fault there.
func (n *Node) InjectFault(ctx context.Context, f Fault) error {
	if err := f.Validate(); err != nil {
		return err
	}
	// Written to a temporary name and renamed, so kubeadm never reads half a fault.
	_, err := execIn(ctx, n.lab.pool.Client, n.container(), strings.NewReader(f.String()),
		"sh", "-c", `cat > "$0.tmp" && mv -f "$0.tmp" "$0"`, FaultFile)
	if err != nil {
		return fmt.Errorf("inject fault on %s: %w", n.Name, err)
	}
	return nil
}

// ClearFault removes the node's fault, if any.
func (n *Node) ClearFault(ctx context.Context) error {
	if _, err := n.Exec(ctx, "rm", "-f", FaultFile); err != nil {
		return fmt.Errorf("clear fault on %s: %w", n.Name, err)
	}
	return nil
}
