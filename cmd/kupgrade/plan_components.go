package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/kupgrade/kupgrade/upgrade"
)

// componentView is one row of the plan's component table, as `kubeadm upgrade plan` prints
// them: a component on a host, the version it runs and the one the upgrade brings.
type componentView struct {
	Component string  `json:"component"`
	Host      string  `json:"host"`
	Current   *string `json:"current"`
	Target    string  `json:"target"`
}

// staticPods are the control-plane components kubeadm upgrades on each controller, at the
// control plane's version.
var staticPods = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// components lists, per host, the kubelet and (on a controller) the static pods with their
// current and target versions; a host that has no control plane has no static-pod row.
func components(p *upgrade.Preview) []componentView {
	out := []componentView{}
	for _, h := range p.Versions {
		out = append(out, componentView{Component: "kubelet", Host: h.Host, Current: nullable(h.Kubelet), Target: p.To})
		if h.ControlPlane == "" {
			continue
		}
		for _, c := range staticPods {
			out = append(out, componentView{Component: c, Host: h.Host, Current: nullable(h.ControlPlane), Target: p.To})
		}
	}
	return out
}

// writeComponents prints the component table; a row already at the target says so.
func writeComponents(w io.Writer, cs []componentView) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nComponents (as kubeadm upgrade plan shows them):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  COMPONENT\tHOST\tCURRENT\tTARGET")
	for _, c := range cs {
		cur, target := "-", c.Target
		if c.Current != nil {
			cur = *c.Current
		}
		if cur == c.Target {
			target += " (already)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Component, c.Host, cur, target)
	}
	tw.Flush()
}
