package health

// NodesScript lists, on one controller as root, the nodes as the API server reports them.
const NodesScript = runner + `run nodes $K get nodes -o json
`

// CordonMark is the annotation kupgrade's kubelet step puts on a node before it cordons it and
// takes off once it uncordons it: a node that carries it is still drained by kupgrade.
const CordonMark = "kupgrade.io/cordoned"

// Node is what the API server reports of one node.
type Node struct {
	Name          string
	Kubelet       string // status.nodeInfo.kubeletVersion: the version the running kubelet reports
	Ready         bool
	Unschedulable bool
	CordonedBy    string // the CordonMark annotation: whose kubelet step cordoned it (upgrade, runner, database; an older kupgrade's: the version)
}

// Nodes reads NodesScript's output: every node by name.
func Nodes(out string) (map[string]Node, error) {
	ns, err := list[node](sections(out)["nodes"], "nodes")
	if err != nil {
		return nil, err
	}
	m := make(map[string]Node, len(ns))
	for _, n := range ns {
		m[n.Meta.Name] = Node{Name: n.Meta.Name, Kubelet: n.Status.NodeInfo.KubeletVersion, Ready: n.ready(),
			Unschedulable: n.Spec.Unschedulable, CordonedBy: n.Meta.Annotations[CordonMark]}
	}
	return m, nil
}

// Settled reports whether the node's kubelet step at version to has nothing left to do: its
// running kubelet reports to, it is Ready, and kupgrade's cordon is lifted. The reason says what
// is left otherwise.
func (n Node) Settled(to string) (ok bool, reason string) {
	switch {
	case n.Kubelet != to:
		return false, "the node's running kubelet reports " + n.Kubelet
	case !n.Ready:
		return false, "the node is not Ready"
	case n.CordonedBy != "":
		return false, "the node is still cordoned by kupgrade (" + CordonMark + "=" + n.CordonedBy + ")"
	}
	return true, ""
}
