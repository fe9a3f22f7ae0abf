package health

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// The checks of an upgrade's end, run before upgrade-complete is written: the API server
// answers, every node reports the target kubelet and is Ready, the control-plane pods run the
// target.
const (
	CheckAPI      = "api-server"
	CheckKubelets = "kubelets-at-target"
)

// CompleteScript gathers, on one controller as root, what JudgeComplete reads: the API server's
// /readyz, the nodes and kube-system's pods.
const CompleteScript = runner + `run readyz $K get --raw /readyz
run nodes $K get nodes -o json
run pods $K -n kube-system get pods -o json
`

// JudgeComplete judges CompleteScript's output against the target to: one line for the API
// server, the nodes (each at to and Ready) and the control-plane pods (each Running at to).
func JudgeComplete(out string, to state.Version) []Result {
	secs := sections(out)
	api := pass(CheckAPI, "the API server is ready")
	if s := secs["readyz"]; s.rc != 0 || strings.TrimSpace(s.body) != "ok" {
		api = Result{Check: CheckAPI, Status: Fail, Message: "the API server is not ready: " + cmp.Or(firstLine(s.body), fmt.Sprintf("exit status %d", s.rc))}
	}
	nodes, nodesErr := list[node](secs["nodes"], "nodes")
	pods, podsErr := list[pod](secs["pods"], "pods")
	return []Result{
		api,
		needs(CheckKubelets, nodesErr, func() Result { return kubeletsAt(nodes, to) }),
		needs(CheckControlPlane, firstErr(nodesErr, podsErr), func() Result { return controlPlane(nodes, pods, to, true) }),
	}
}

// JudgeControlPlane judges CompleteScript's output after an abort: the API server is ready and
// every controller's control-plane pods are Running and Ready at v. The kubelets are not judged:
// an abort leaves those it did not take back.
func JudgeControlPlane(out string, v state.Version) []Result {
	rs := JudgeComplete(out, v)
	return slices.DeleteFunc(rs, func(r Result) bool { return r.Check == CheckKubelets })
}

// kubeletsAt fails naming every node whose kubelet is not at to, or that is not Ready, with
// what it reports.
func kubeletsAt(nodes []node, to state.Version) Result {
	var bad []string
	for _, n := range nodes {
		var why []string
		if v := n.Status.NodeInfo.KubeletVersion; v != to.String() {
			why = append(why, fmt.Sprintf("kubelet %s, want %s", cmp.Or(v, "unknown"), to))
		}
		if !n.ready() {
			why = append(why, "not Ready")
		}
		if len(why) > 0 {
			bad = append(bad, fmt.Sprintf("%s (%s)", n.Meta.Name, strings.Join(why, ", ")))
		}
	}
	if len(nodes) == 0 {
		return Result{Check: CheckKubelets, Status: Fail, Message: "the API server lists no node"}
	}
	return verdict(CheckKubelets, bad, false, fmt.Sprintf("%d of %d nodes not Ready at %s", len(bad), len(nodes), to),
		fmt.Sprintf("%d nodes Ready, every kubelet at %s", len(nodes), to))
}
