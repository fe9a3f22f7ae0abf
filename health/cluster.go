package health

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// The parts of the Kubernetes objects the checks read (kubectl -o json).
type (
	meta struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
		Owners      []owner           `json:"ownerReferences"`
	}
	owner struct {
		Kind string `json:"kind"`
	}
	node struct {
		Meta meta `json:"metadata"`
		Spec struct {
			Unschedulable bool `json:"unschedulable"`
		} `json:"spec"`
		Status struct {
			Conditions []struct{ Type, Status string } `json:"conditions"`
			NodeInfo   struct {
				KubeletVersion string `json:"kubeletVersion"`
			} `json:"nodeInfo"`
		} `json:"status"`
	}
	pod struct {
		Meta meta `json:"metadata"`
		Spec struct {
			NodeName   string `json:"nodeName"`
			Containers []struct {
				Image string `json:"image"`
			} `json:"containers"`
			Volumes []struct {
				Name     string    `json:"name"`
				EmptyDir *struct{} `json:"emptyDir"`
			} `json:"volumes"`
		} `json:"spec"`
		Status struct {
			Phase      string                          `json:"phase"`
			Conditions []struct{ Type, Status string } `json:"conditions"`
		} `json:"status"`
	}
)

// list decodes a kubectl "List" of items.
func list[T any](s section, what string) ([]T, error) {
	if s.rc != 0 {
		return nil, fmt.Errorf("kubectl get %s: exit status %d: %s", what, s.rc, firstLine(s.body))
	}
	var l struct {
		Items []T `json:"items"`
	}
	if err := json.Unmarshal([]byte(s.body), &l); err != nil {
		return nil, fmt.Errorf("decode kubectl get %s: %w", what, err)
	}
	return l.Items, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func (n node) ready() bool {
	for _, c := range n.Status.Conditions {
		if c.Type == "Ready" {
			return c.Status == "True"
		}
	}
	return false
}

func (n node) controller() bool {
	_, cp := n.Meta.Labels["node-role.kubernetes.io/control-plane"]
	_, master := n.Meta.Labels["node-role.kubernetes.io/master"]
	return cp || master
}

// nodesReady fails naming every node that is not Ready.
func nodesReady(nodes []node) Result {
	var bad []string
	for _, n := range nodes {
		if !n.ready() {
			bad = append(bad, n.Meta.Name)
		}
	}
	return verdict(CheckNodes, bad, false, fmt.Sprintf("%d of %d nodes not Ready", len(bad), len(nodes)),
		fmt.Sprintf("%d nodes Ready", len(nodes)))
}

// controlPlaneComponents are the static pods kubeadm runs on every controller.
var controlPlaneComponents = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// controlPlane fails naming every controller's component that is missing, not Running or not
// at version (stacked etcd is not a Kubernetes version and is not judged here); with ready, also
// one Running but not Ready. The checks before a window or a hop do not ask for Ready (they ask
// once, and a component restarted a moment before is not Ready for a few seconds); complete
// and abort, which ask again until their timeout, do.
func controlPlane(nodes []node, pods []pod, version state.Version, ready bool) Result {
	var bad []string
	n := 0
	for _, nd := range nodes {
		if !nd.controller() {
			continue
		}
		for _, c := range controlPlaneComponents {
			n++
			p, ok := staticPod(pods, c, nd.Meta.Name)
			switch {
			case !ok:
				bad = append(bad, fmt.Sprintf("%s/%s (missing)", nd.Meta.Name, c))
			case p.Status.Phase != "Running":
				bad = append(bad, fmt.Sprintf("kube-system/%s (%s)", p.Meta.Name, p.Status.Phase))
			case imageTag(p) != version.String():
				bad = append(bad, fmt.Sprintf("kube-system/%s (%s, want %s)", p.Meta.Name, imageTag(p), version))
			case ready && p.notReady():
				bad = append(bad, fmt.Sprintf("kube-system/%s (Running, not Ready)", p.Meta.Name))
			}
		}
	}
	return verdict(CheckControlPlane, bad, false, fmt.Sprintf("control-plane pods not Running and Ready at %s", version),
		fmt.Sprintf("%d control-plane pods Running at %s", n, version))
}

// notReady: the kubelet reports the pod's Ready condition False (kube-apiserver's is its
// /readyz probe: a restarted API server Running but still syncing its caches is not Ready). A
// pod with no Ready condition is not judged by it.
func (p pod) notReady() bool {
	for _, c := range p.Status.Conditions {
		if c.Type == "Ready" {
			return c.Status != "True"
		}
	}
	return false
}

func staticPod(pods []pod, component, nodeName string) (pod, bool) {
	for _, p := range pods {
		if p.Meta.Namespace == "kube-system" && p.Meta.Labels["component"] == component && p.Spec.NodeName == nodeName {
			return p, true
		}
	}
	return pod{}, false
}

func imageTag(p pod) string {
	if len(p.Spec.Containers) == 0 {
		return ""
	}
	img := p.Spec.Containers[0].Image
	if i := strings.LastIndex(img, ":"); i > strings.LastIndex(img, "/") {
		return img[i+1:]
	}
	return img
}

// lowestControlPlane is the lowest version a kube-apiserver pod runs: the control plane's
// version when no one says which it is (zero when no pod tells).
func lowestControlPlane(pods []pod) state.Version {
	var low state.Version
	for _, p := range pods {
		if p.Meta.Namespace != "kube-system" || p.Meta.Labels["component"] != "kube-apiserver" {
			continue
		}
		if v, err := state.ParseVersion(imageTag(p)); err == nil && (low.Major == 0 || v.Compare(low) < 0) {
			low = v
		}
	}
	return low
}

// MaxKubeletSkew is how many minors a kubelet may be behind its API server: three since
// Kubernetes v1.28, two before.
func MaxKubeletSkew(apiServer state.Version) int {
	if apiServer.Major == 1 && apiServer.Minor < 28 {
		return 2
	}
	return 3
}

// kubeletSkew fails naming every kubelet that the target's API server would not allow: more
// than MaxKubeletSkew minors behind it, or newer than it.
func kubeletSkew(nodes []node, to state.Version) Result {
	var bad []string
	limit := MaxKubeletSkew(to)
	for _, n := range nodes {
		v, err := state.ParseVersion(n.Status.NodeInfo.KubeletVersion)
		switch {
		case err != nil:
			bad = append(bad, fmt.Sprintf("%s (kubelet %q)", n.Meta.Name, n.Status.NodeInfo.KubeletVersion))
		case v.Major != to.Major || to.Minor-v.Minor > limit || v.Compare(to) > 0:
			bad = append(bad, fmt.Sprintf("%s (kubelet %s)", n.Meta.Name, v))
		}
	}
	slices.Sort(bad)
	return verdict(CheckKubeletSkew, bad, false,
		fmt.Sprintf("kubelets outside the skew an API server at %s allows (at most %d minors behind, never newer)", to, limit),
		fmt.Sprintf("every kubelet within %d minors of %s", limit, to))
}
