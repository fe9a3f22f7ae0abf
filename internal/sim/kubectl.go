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

// kubectl answers what kupgrade asks the API server: complete's (health.CompleteScript) get
// --raw /readyz, get nodes -o json (every host of the cluster, Ready, at the kubelet it runs)
// and get pods -o json (each controller's static pods at its manifests' tags), the health
// checks' (health.ClusterScript): no PodDisruptionBudget, the API servers' metrics without a
// deprecated API requested, kubeadm's ClusterConfiguration (stacked etcd) and /readyz/etcd; and
// get namespace kube-system -o jsonpath={.metadata.uid} (the cluster's identity, for the host
// fence). Nothing else is simulated.
func (h *Host) kubectl(_ context.Context, hc interp.HandlerContext, args []string) int {
	var words []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.HasSuffix(a, ".conf") && a != "json" && a != "kube-system" {
			words = append(words, a)
		}
	}
	if text, ok := kubectlText(words); ok {
		fmt.Fprint(hc.Stdout, text)
		return 0
	}
	var out any
	switch {
	case slices.Equal(words, []string{"get", "namespace", "jsonpath={.metadata.uid}"}) && slices.Contains(args, "kube-system"):
		fmt.Fprint(hc.Stdout, h.cluster.uid)
		return 0
	case slices.Equal(words, []string{"get", "nodes"}):
		out = h.cluster.nodes()
	case slices.Equal(words, []string{"get", "pods"}):
		out = h.cluster.staticPods()
	case slices.Equal(words, []string{"get", "pdb"}):
		out = []object{}
	default:
		fmt.Fprintf(hc.Stderr, "kupgrade sim kubectl: %q is not simulated\n", args)
		return 1
	}
	data, _ := json.Marshal(map[string]any{"kind": "List", "items": out})
	fmt.Fprintf(hc.Stdout, "%s\n", data)
	return 0
}

// clusterConfiguration is kubeadm-config's ClusterConfiguration, as far as the checks read it:
// etcd is stacked, a static pod on each controller.
const clusterConfiguration = "apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nclusterName: kubernetes\netcd:\n  local:\n    dataDir: /var/lib/etcd\n"

// kubectlText is the answer to the questions answered in plain text (words: the command's
// words without flags), and whether words is one of them.
func kubectlText(words []string) (string, bool) {
	switch {
	case slices.Equal(words, []string{"get", "/readyz"}), slices.Equal(words, []string{"get", "/readyz/etcd"}):
		return "ok\n", true
	case slices.Equal(words, []string{"get", "/metrics"}):
		return "# HELP apiserver_requested_deprecated_apis Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.\n# TYPE apiserver_requested_deprecated_apis gauge\n", true
	case len(words) == 4 && words[1] == "pods" && words[2] == "component=kube-apiserver" && strings.HasPrefix(words[3], "jsonpath="):
		return "", true // no advertise-address annotation: the checks ask admin.conf's endpoint
	case len(words) == 4 && words[1] == "configmap" && words[2] == "kubeadm-config":
		return clusterConfiguration, true
	}
	return "", false
}

type object = map[string]any

func (c *Cluster) nodes() []object {
	var out []object
	for _, h := range c.Hosts {
		v, _ := h.File(nodeStatus)
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
			out = append(out, object{"metadata": object{"name": comp + "-" + h.Name, "namespace": "kube-system", "labels": object{"component": comp},
				"annotations": object{"kubernetes.io/config.mirror": h.Name}},
				"spec": object{"nodeName": h.Name, "containers": []object{{"image": image}}}, "status": object{"phase": "Running"}})
		}
	}
	return out
}
