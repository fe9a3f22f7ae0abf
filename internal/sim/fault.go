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

// Phases are the phases of `kubeadm upgrade apply` and `kubeadm upgrade node` a fault can name,
// in the order they run, as the lab has them (config is the read of the kubeadm-config
// ConfigMap). The lab's other phases (packages, drain, etcd, the kubelet's status) are not
// simulated here.
var Phases = []string{"config", "preflight", "control-plane", "kubelet-config", "addon", "post-upgrade"}

// Action is what a fault does when it fires.
type Action string

const (
	// Exit makes kubeadm exit with Fault.Status, printing kubeadm's "error execution phase".
	Exit Action = "exit"
	// Hang makes kubeadm wait until the session that started it ends.
	Hang Action = "hang"
	// Drop closes the SSH connection serving the session: kubeadm stops there.
	Drop Action = "drop"
	// Delay makes kubeadm wait Fault.Seconds (or until the session ends), then go on.
	Delay Action = "delay"
)

// Fault is one injected failure of a host's simulated kubeadm; its fields mean what the lab's
// Fault's mean.
type Fault struct {
	Phase   string // one of Phases
	Before  bool   // fire when the phase starts (nothing of it done) instead of after it ends
	Action  Action
	Status  int    // exit status for Exit; default 1
	Seconds int    // how long Delay waits; default 10
	Once    bool   // removed when it fires, so a retry succeeds
	Check   string // the preflight check an Exit in preflight fails; default LabFault
}

// Validate reports a fault the simulated kubeadm could not fire.
func (f Fault) Validate() error {
	if !slices.Contains(Phases, f.Phase) {
		return fmt.Errorf("fault phase %q: want one of %s", f.Phase, strings.Join(Phases, ", "))
	}
	if f.Check != "" && (f.Phase != "preflight" || f.Action != Exit || strings.ContainsAny(f.Check, "\n=]")) {
		return fmt.Errorf("fault check %q: only an exit in preflight names a check, one word", f.Check)
	}
	switch {
	case f.Action == Exit && (f.Status < 0 || f.Status > 255):
		return fmt.Errorf("fault exit status %d: want 0-255", f.Status)
	case f.Action == Delay && f.Seconds < 0:
		return fmt.Errorf("fault delay %d s: want 0 or more", f.Seconds)
	case !slices.Contains([]Action{Exit, Hang, Drop, Delay}, f.Action):
		return fmt.Errorf("fault action %q: want exit, hang, drop or delay", f.Action)
	}
	return nil
}

// String is the fault file's content, in the lab's format.
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
