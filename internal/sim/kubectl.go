package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// kubectl answers what complete asks the API server (health.CompleteScript): get --raw /readyz,
// get nodes -o json (every host of the cluster, Ready, at the kubelet it runs) and get pods -o
// json in kube-system (each controller's static pods at its manifests' tags), and get namespace
// kube-system -o jsonpath={.metadata.uid} (the cluster's identity). Nothing else is simulated.
func (h *Host) kubectl(_ context.Context, hc interp.HandlerContext, args []string) int {
	var words []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.HasSuffix(a, ".conf") && a != "json" && a != "kube-system" {
			words = append(words, a)
		}
	}
	var out any
	switch {
	case slices.Equal(words, []string{"get", "/readyz"}):
		fmt.Fprintln(hc.Stdout, "ok")
		return 0
	case slices.Equal(words, []string{"get", "namespace", "jsonpath={.metadata.uid}"}) && slices.Contains(args, "kube-system"):
		fmt.Fprint(hc.Stdout, h.cluster.uid)
		return 0
	case slices.Equal(words, []string{"get", "nodes"}):
		out = h.cluster.nodes()
	case slices.Equal(words, []string{"get", "pods"}):
		out = h.cluster.staticPods()
	default:
		fmt.Fprintf(hc.Stderr, "kupgrade sim kubectl: %q is not simulated\n", args)
		return 1
	}
	data, _ := json.Marshal(map[string]any{"kind": "List", "items": out})
	fmt.Fprintf(hc.Stdout, "%s\n", data)
	return 0
}

type object = map[string]any

func (c *Cluster) nodes() []object {
	var out []object
	for _, h := range c.Hosts {
		v, _ := h.File(labDir + "/kubelet-running")
		labels := object{}
		if h.Controller {
			labels["node-role.kubernetes.io/control-plane"] = ""
		}
		out = append(out, object{"metadata": object{"name": h.Name, "labels": labels},
			"status": object{"conditions": []object{{"type": "Ready", "status": "True"}},
				"nodeInfo": object{"kubeletVersion": strings.TrimSpace(v)}}})
	}
	return out
}

var imageLine = regexp.MustCompile(`(?m)^\s*image:\s*(\S+)\s*$`)

func (c *Cluster) staticPods() []object {
	var out []object
	for _, h := range c.Hosts {
		for _, comp := range components {
			m, ok := h.File(manifests + "/" + comp + ".yaml")
			if !h.Controller || !ok {
				continue
			}
			image := ""
			if sm := imageLine.FindStringSubmatch(m); sm != nil {
				image = sm[1]
			}
			out = append(out, object{"metadata": object{"name": comp + "-" + h.Name, "namespace": "kube-system", "labels": object{"component": comp}},
				"spec": object{"nodeName": h.Name, "containers": []object{{"image": image}}}, "status": object{"phase": "Running"}})
		}
	}
	return out
}
