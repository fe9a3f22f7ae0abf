package health

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// completeOut is CompleteScript's output for nodes (name, kubelet, ready) and the control-plane
// pods of controller-0 at tag.
func completeOut(readyz string, tag string, nodes ...[3]string) string {
	var ns []string
	for _, n := range nodes {
		ns = append(ns, fmt.Sprintf(`{"metadata":{"name":%q,"labels":{"node-role.kubernetes.io/control-plane":""}},
		  "status":{"conditions":[{"type":"Ready","status":%q}],"nodeInfo":{"kubeletVersion":%q}}}`, n[0], n[2], n[1]))
	}
	var ps []string
	for _, c := range controlPlaneComponents {
		for _, n := range nodes {
			ps = append(ps, fmt.Sprintf(`{"metadata":{"name":"%s-%s","namespace":"kube-system","labels":{"component":%q}},
			  "spec":{"nodeName":%q,"containers":[{"image":"registry.k8s.io/%s:%s"}]},"status":{"phase":"Running"}}`, c, n[0], c, n[0], c, tag))
		}
	}
	return sectionMark + "readyz rc=0\n" + readyz + "\n" +
		sectionMark + "nodes rc=0\n" + `{"items":[` + strings.Join(ns, ",") + "]}\n" +
		sectionMark + "pods rc=0\n" + `{"items":[` + strings.Join(ps, ",") + "]}\n"
}

// The end of an upgrade passes only when the API server is ready and every node and
// control-plane pod reports the target; a failure names the node or pod and what it reports.
func TestJudgeComplete(t *testing.T) {
	to := v(t, "v1.30.1")
	cases := []struct {
		name    string
		out     string
		failing map[string][]string // check -> objects
	}{
		{"done", completeOut("ok", "v1.30.1", [3]string{"c0", "v1.30.1", "True"}, [3]string{"c1", "v1.30.1", "True"}), nil},
		{"a kubelet still old", completeOut("ok", "v1.30.1", [3]string{"c0", "v1.30.1", "True"}, [3]string{"c1", "v1.29.4", "True"}),
			map[string][]string{CheckKubelets: {"c1 (kubelet v1.29.4, want v1.30.1)"}}},
		{"a node not ready", completeOut("ok", "v1.30.1", [3]string{"c0", "v1.30.1", "False"}),
			map[string][]string{CheckKubelets: {"c0 (not Ready)"}}},
		{"the control plane old", completeOut("ok", "v1.29.4", [3]string{"c0", "v1.30.1", "True"}),
			map[string][]string{CheckControlPlane: {"kube-system/kube-apiserver-c0 (v1.29.4, want v1.30.1)",
				"kube-system/kube-controller-manager-c0 (v1.29.4, want v1.30.1)", "kube-system/kube-scheduler-c0 (v1.29.4, want v1.30.1)"}}},
		{"an API server Running, not Ready", strings.Replace(completeOut("ok", "v1.30.1", [3]string{"c0", "v1.30.1", "True"}),
			`"status":{"phase":"Running"}`, `"status":{"phase":"Running","conditions":[{"type":"Ready","status":"False"}]}`, 1),
			map[string][]string{CheckControlPlane: {"kube-system/kube-apiserver-c0 (Running, not Ready)"}}},
		{"the API server down", sectionMark + "readyz rc=1\nThe connection to the server was refused\n" + sectionMark + "nodes rc=1\nrefused\n" + sectionMark + "pods rc=1\nrefused\n",
			map[string][]string{CheckAPI: nil, CheckKubelets: nil, CheckControlPlane: nil}},
	}
	for _, c := range cases {
		rs := JudgeComplete(c.out, to)
		if len(rs) != 3 {
			t.Fatalf("%s: %d lines, want 3: %v", c.name, len(rs), rs)
		}
		for _, r := range rs {
			objs, fail := c.failing[r.Check]
			if fail != (r.Status == Fail) || fail && objs != nil && !slices.Equal(r.Objects, objs) {
				t.Errorf("%s: %s; want failing %v, naming %q", c.name, r, fail, objs)
			}
		}
	}
	if r := JudgeComplete(completeOut("ok", "v1.30.1"), to)[1]; r.Status != Fail {
		t.Errorf("no node listed: %s, want a failure", r)
	}
}
