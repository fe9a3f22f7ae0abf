package kubeadm

import "strings"

// Interrupted is f for a step the operator interrupted (Ctrl-C): nothing on the host is to fix,
// so the advice says who stopped it and keeps what the redo does.
func (f Finding) Interrupted() Finding {
	next := strings.Replace(f.Next, "fix the cause shown in the step's output, then retry the step", "retry the step when ready", 1)
	f.Next = "interrupted by the operator, not a fault of the host: " + next
	return f
}
