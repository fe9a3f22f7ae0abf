package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FaultFile is where the simulated kubeadm looks for a host's fault, as the lab's kubeadm does.
const FaultFile = "/etc/kupgrade-lab/fault"

// Phases are the phases a fault can name, on either lab: kubeadm upgrade's, in the order they
// run (config is its read of the kubeadm-config ConfigMap: an Exit there prints the Forbidden of
// an API server restarted a moment before; nothing changed); then the package tools' (apt-download:
// nothing changed yet; dpkg-unpack: the package is unpacked, so an exit or a kill leaves dpkg
// interrupted until `dpkg --configure -a`; dnf-download: nothing changed yet); kubectl drain's
// (evict: the node is cordoned, no pod evicted yet); the kubelet's restart posting its node status
// (PhaseKubeletStatus, with Stale only); and etcdctl snapshot save's (PhaseEtcdSnapshot). The
// simulator fires kubeadm's phases and the kubelet's (Simulated); the Docker lab fires them all.
var Phases = []string{"config", "preflight", "control-plane", "kubelet-config", "addon", "post-upgrade",
	"apt-download", "dpkg-unpack", "dnf-download", "evict", PhaseKubeletStatus, PhaseEtcdSnapshot}

// PhaseKubeletStatus is the kubelet's restart posting the node's status (its kubelet version).
const PhaseKubeletStatus = "kubelet-status"

// PhaseEtcdSnapshot is etcdctl snapshot save FILE: Before fires once FILE.part is created and
// nothing is fetched yet, after once FILE.part is written, before its rename to FILE. An Exit
// there removes FILE.part and prints etcdctl's error for a snapshot stream that broke.
const PhaseEtcdSnapshot = "etcd-snapshot"

// Simulated reports whether the simulator fires faults of phase (the Docker lab fires every
// phase of Phases).
func Simulated(phase string) bool {
	return slices.Contains(Phases[:6], phase) || phase == PhaseKubeletStatus
}

// Action is what a fault does when it fires.
type Action string

const (
	// Exit makes the command exit with Fault.Status, printing kubeadm's "error execution phase".
	Exit Action = "exit"
	// Hang makes it wait until the session that started it ends (on the Docker lab: it dies on
	// SIGTERM, SIGHUP or SIGINT, or within a second of its SSH session going away).
	Hang Action = "hang"
	// Drop closes the SSH connection serving the session: the command stops there.
	Drop Action = "drop"
	// Delay makes it wait Fault.Seconds (or until the session ends), then go on.
	Delay Action = "delay"
	// Stale, in PhaseKubeletStatus only, keeps the node's status at the kubelet version it
	// reported before: the kubelet restarts at its new version, and the API server still lists
	// the old one (until the fault is cleared and the kubelet restarted).
	Stale Action = "stale"
)

// Fault is one injected failure, the same on the simulator and on the Docker lab (whose fault
// file, fault.sh in its image, reads String's format).
type Fault struct {
	Phase   string // one of Phases
	Before  bool   // fire when the phase starts (nothing of it done) instead of after it ends
	Action  Action
	Status  int // exit status for Exit; default 1
	Seconds int // how long Delay waits; default 10
	Once    bool
	// Check names the preflight check an Exit in preflight fails ([ERROR Check], as kubeadm
	// prints it); default LabFault, a check no real kubeadm has.
	Check string
}

// Validate reports a fault the simulated kubeadm could not fire.
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
	switch {
	case f.Action == Exit && (f.Status < 0 || f.Status > 255):
		return fmt.Errorf("fault exit status %d: want 0-255", f.Status)
	case f.Action == Delay && f.Seconds < 0:
		return fmt.Errorf("fault delay %d s: want 0 or more", f.Seconds)
	case !slices.Contains([]Action{Exit, Hang, Drop, Delay, Stale}, f.Action):
		return fmt.Errorf("fault action %q: want exit, hang, drop, delay or stale", f.Action)
	}
	return nil
}

// String is the fault file's content, as both labs read it.
func (f Fault) String() string {
	f = f.withDefaults()
	when := "after"
	if f.Before {
		when = "in"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s=%s\naction=%s\nstatus=%d\n", when, f.Phase, f.Action, f.Status)
	if f.Action == Delay {
		fmt.Fprintf(&b, "seconds=%d\n", f.Seconds)
	}
	if f.Check != "" {
		fmt.Fprintf(&b, "check=%s\n", f.Check)
	}
	fmt.Fprintf(&b, "once=%s\n", strconv.FormatBool(f.Once))
	return b.String()
}

func (f Fault) withDefaults() Fault {
	if f.Status == 0 {
		f.Status = 1
	}
	if f.Seconds == 0 {
		f.Seconds = 10
	}
	return f
}

// parseFault reads a fault file as the lab's fault.sh does: key=value lines, defaults for the
// keys left out.
func parseFault(text string) Fault {
	f := Fault{Action: Exit, Status: 1, Seconds: 10, Check: "LabFault"}
	for line := range strings.Lines(text) {
		key, value, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		switch key {
		case "after", "in":
			f.Phase, f.Before = value, key == "in"
		case "action":
			f.Action = Action(value)
		case "status":
			f.Status, _ = strconv.Atoi(value)
		case "seconds":
			f.Seconds, _ = strconv.Atoi(value)
		case "once":
			f.Once = value == "true"
		case "check":
			f.Check = value
		}
	}
	return f
}

// InjectFault arms f on h (the fault file on its disk), replacing any fault there.
func (h *Host) InjectFault(f Fault) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if !Simulated(f.Phase) {
		return fmt.Errorf("fault phase %q: the Docker lab's (package tools, drains, etcdctl), which the simulator does not fire", f.Phase)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	h.disk.mkdirAll("/etc/kupgrade-lab", now)
	h.disk.write(FaultFile, []byte(f.String()), now)
	return nil
}

// ClearFault removes h's fault, if any.
func (h *Host) ClearFault() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.disk.removeAll(FaultFile)
}

// takeFault is the fault due at this point of kubeadm's run, if any, removed when it is once.
func (h *Host) takeFault(before bool, phase string) (Fault, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	file, ok := h.disk[FaultFile]
	if !ok || file.dir {
		return Fault{}, false
	}
	f := parseFault(string(file.data))
	if f.Before != before || f.Phase != phase {
		return Fault{}, false
	}
	if f.Once {
		h.disk.removeAll(FaultFile)
	}
	return f, true
}
