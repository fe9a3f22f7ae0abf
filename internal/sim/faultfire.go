package sim

import (
	"context"
	"fmt"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// faultPoint fires the host's fault when it names this point (before or after phase): it returns
// kubeadm's exit status and true when kubeadm stops there.
func (h *Host) faultPoint(ctx context.Context, hc interp.HandlerContext, before bool, phase string) (int, bool) {
	f, ok := h.takeFault(before, phase)
	if !ok {
		return 0, false
	}
	switch f.Action {
	case Exit:
		return faultExit(hc, h.Name, f), true
	case Hang:
		<-ctx.Done()
		return 129, true
	case Drop:
		if !dropConn(ctx) {
			fmt.Fprintln(hc.Stderr, "kupgrade sim: drop fault outside an SSH session")
		}
		return 255, true
	case Delay:
		select {
		case <-ctx.Done():
			return 129, true
		case <-time.After(time.Duration(f.Seconds) * time.Second):
			return 0, false
		}
	}
	fmt.Fprintf(hc.Stderr, "kupgrade sim: unknown fault action %q in %s\n", f.Action, FaultFile)
	return 1, true
}

// faultExit prints what kubeadm prints when phase fails, as the lab's fault_exit does.
func faultExit(hc interp.HandlerContext, node string, f Fault) int {
	w := hc.Stderr
	switch f.Phase {
	case "config":
		fmt.Fprintf(w, `unable to fetch the kubeadm-config ConfigMap: failed to get config map: configmaps "kubeadm-config" is forbidden: User "system:node:%s" cannot get resource "configmaps" in API group "" in the namespace "kube-system": failure injected by kupgrade sim`+"\n", node)
		fmt.Fprintln(w, "To see the stack trace of this error execute with --v=5 or higher")
		return f.Status
	case "preflight":
		fmt.Fprintln(w, "[preflight] Some fatal errors occurred:")
		fmt.Fprintf(w, "\t[ERROR %s]: failure injected by kupgrade sim\n", f.Check)
		fmt.Fprintln(w, "[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`")
	}
	fmt.Fprintf(w, "error execution phase %s: failure injected by kupgrade sim (exit status %d)\n", f.Phase, f.Status)
	fmt.Fprintln(w, "To see the stack trace of this error execute with --v=5 or higher")
	return f.Status
}
