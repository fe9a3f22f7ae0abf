package health

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSelectorMatches(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "front"}
	cases := []struct {
		sel  string
		want bool
	}{
		{`{}`, true},
		{`{"matchLabels":{"app":"web"}}`, true},
		{`{"matchLabels":{"app":"db"}}`, false},
		{`{"matchExpressions":[{"key":"tier","operator":"In","values":["front","back"]}]}`, true},
		{`{"matchExpressions":[{"key":"tier","operator":"NotIn","values":["front"]}]}`, false},
		{`{"matchExpressions":[{"key":"zone","operator":"NotIn","values":["a"]}]}`, true},
		{`{"matchExpressions":[{"key":"app","operator":"Exists"}]}`, true},
		{`{"matchExpressions":[{"key":"app","operator":"DoesNotExist"}]}`, false},
		{`{"matchExpressions":[{"key":"app","operator":"Bogus"}]}`, false},
		{`{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"zone","operator":"Exists"}]}`, false},
	}
	for _, c := range cases {
		var s selector
		if err := json.Unmarshal([]byte(c.sel), &s); err != nil {
			t.Fatal(err)
		}
		if got := s.matches(labels); got != c.want {
			t.Errorf("%s matches %v = %v, want %v", c.sel, labels, got, c.want)
		}
	}
	var none *selector
	if none.matches(labels) {
		t.Error("a budget without a selector selects a pod")
	}
}

// A drain is judged per pod: unmanaged pods stop it unless forced, emptyDir data warns,
// DaemonSet and static pods are left alone.
func TestDrainFeasible(t *testing.T) {
	var pods []pod
	err := json.Unmarshal([]byte(`[
	  {"metadata":{"name":"bare","namespace":"ops"},"spec":{"nodeName":"worker-0"},"status":{"phase":"Running"}},
	  {"metadata":{"name":"cache","namespace":"ops","ownerReferences":[{"kind":"ReplicaSet"}]},"spec":{"nodeName":"worker-0","volumes":[{"name":"scratch","emptyDir":{}}]},"status":{"phase":"Running"}},
	  {"metadata":{"name":"ds","namespace":"ops","ownerReferences":[{"kind":"DaemonSet"}]},"spec":{"nodeName":"worker-0"},"status":{"phase":"Running"}},
	  {"metadata":{"name":"static","namespace":"kube-system","annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"nodeName":"worker-0"},"status":{"phase":"Running"}},
	  {"metadata":{"name":"done","namespace":"ops"},"spec":{"nodeName":"worker-0"},"status":{"phase":"Succeeded"}}]`), &pods)
	if err != nil {
		t.Fatal(err)
	}
	r := drainFeasible(pods, nil, false)
	want := []string{"ops/bare on worker-0 (no controller: a drain refuses it)", "ops/cache on worker-0 (emptyDir scratch: its data goes)"}
	if r.Status != Fail || !slices.Equal(r.Objects, want) {
		t.Errorf("drain without force: %s, want fail naming %q", r, want)
	}
	if r := drainFeasible(pods, nil, true); r.Status != Warn || len(r.Objects) != 2 {
		t.Errorf("drain with force: %s, want a warning naming both", r)
	}
}

func TestParseCerts(t *testing.T) {
	body := "/etc/kubernetes/pki/ca.crt notAfter=Nov 30 10:00:00 2035 GMT\n" +
		"/etc/kubernetes/pki/apiserver.crt notAfter=Dec  1 12:00:00 2026 GMT\n" +
		"/etc/kubernetes/pki/broken.crt Could not read certificate from /etc/kubernetes/pki/broken.crt\n"
	certs, unreadable := parseCerts(body)
	if len(certs) != 2 || certs[1].notAfter != time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) {
		t.Errorf("parsed %v", certs)
	}
	if len(unreadable) != 1 || !strings.HasPrefix(unreadable[0], "/etc/kubernetes/pki/broken.crt (Could not read") {
		t.Errorf("unreadable: %q", unreadable)
	}
	r := certificates(map[string]section{"controller-0": {body: body}}, now, 30)
	wantObj := []string{"controller-0:/etc/kubernetes/pki/broken.crt (Could not read certificate from /etc/kubernetes/pki/broken.crt)",
		"controller-0:/etc/kubernetes/pki/apiserver.crt (expired 3 days ago)"}
	if r.Status != Fail || !slices.Equal(r.Objects, wantObj) {
		t.Errorf("certificates: %s\nwant objects %q", r, wantObj)
	}
	if r := certificates(map[string]section{"controller-0": {body: body}}, now.Add(-10*24*time.Hour), 5); r.Status != Fail || len(r.Objects) != 1 {
		t.Errorf("with 5 days and the apiserver certificate 6 days from its end: %s, want only the unreadable one", r)
	}
}

func TestMetricLabels(t *testing.T) {
	got, err := metricLabels(`apiserver_requested_deprecated_apis{group="",removed_release="",resource="componentstatuses",subresource="",version="v1"} 2`)
	if err != nil || got["resource"] != "componentstatuses" || got["group"] != "" || len(got) != 5 {
		t.Errorf("labels %v, %v", got, err)
	}
	if got, err := metricLabels(`m{a="x\"y,z",b="2"} 1`); err != nil || got["a"] != `x"y,z` || got["b"] != "2" {
		t.Errorf("escaped label: %v, %v", got, err)
	}
	for _, bad := range []string{"m 1", `m{a=x} 1`, `m{a="x} 1`} {
		if _, err := metricLabels(bad); err == nil {
			t.Errorf("metricLabels(%q) accepted", bad)
		}
	}
}

// An API is failed when a minor after the current one, up to the target, removes it: from the
// table, or from the metric's removed_release for one the table lacks.
func TestRemovedAPIs(t *testing.T) {
	requested := []requestedAPI{
		{gvr: "flowcontrol.apiserver.k8s.io/v1beta3/flowschemas", removed: 32},
		{gvr: "example.com/v1alpha1/widgets", removed: 31},
		{gvr: "policy/v1beta1/poddisruptionbudgets", removed: 25},
	}
	cases := []struct {
		from, to string
		want     []string
	}{
		{"v1.30.14", "v1.30.15", nil},
		{"v1.30.14", "v1.31.1", []string{"example.com/v1alpha1/widgets (removed in v1.31)"}},
		{"v1.30.14", "v1.32.2", []string{"example.com/v1alpha1/widgets (removed in v1.31)", "flowcontrol.apiserver.k8s.io/v1beta3/flowschemas (removed in v1.32)"}},
		{"v1.24.17", "v1.25.16", []string{"policy/v1beta1/poddisruptionbudgets (removed in v1.25)"}},
	}
	for _, c := range cases {
		r := removedAPIs(requested, v(t, c.from), v(t, c.to))
		if !slices.Equal(r.Objects, c.want) || (r.Status == Fail) != (c.want != nil) {
			t.Errorf("%s -> %s: %s, want %q", c.from, c.to, r, c.want)
		}
	}
	if got := RemovedBetween(v(t, "v1.31.1"), v(t, "v1.32.2")); len(got) != 2 || got["flowcontrol.apiserver.k8s.io/v1beta3/prioritylevelconfigurations"] != 32 {
		t.Errorf("RemovedBetween(1.31, 1.32) = %v", got)
	}
}

func TestKubeletSkew(t *testing.T) {
	nodes := func(kubelets ...string) []node {
		var out []node
		for i, k := range kubelets {
			var n node
			n.Meta.Name = string(rune('a' + i))
			n.Status.NodeInfo.KubeletVersion = k
			out = append(out, n)
		}
		return out
	}
	cases := []struct {
		to       string
		kubelets []string
		bad      int
	}{
		{"v1.32.2", []string{"v1.29.0", "v1.32.2"}, 0},
		{"v1.32.2", []string{"v1.28.15"}, 1},
		{"v1.27.16", []string{"v1.24.17"}, 1}, // two minors before v1.28
		{"v1.31.1", []string{"v1.32.2"}, 1},   // newer than the API server
		{"v1.31.1", []string{"garbage"}, 1},
	}
	for _, c := range cases {
		r := kubeletSkew(nodes(c.kubelets...), v(t, c.to))
		if len(r.Objects) != c.bad {
			t.Errorf("kubelets %v, target %s: %s, want %d named", c.kubelets, c.to, r, c.bad)
		}
	}
}

func TestEtcdConfig(t *testing.T) {
	e, err := ParseEtcdConfig("etcd:\n  external:\n    endpoints: [https://10.0.0.5:2379, https://10.0.0.6:2379]\n    caFile: /etc/etcd/ca.crt\n")
	if err != nil || !e.External || len(e.Endpoints) != 2 || e.CAFile != "/etc/etcd/ca.crt" {
		t.Errorf("external: %+v, %v", e, err)
	}
	script := EtcdScript(e)
	if !strings.Contains(script, "--endpoints='https://10.0.0.5:2379,https://10.0.0.6:2379'") || !strings.Contains(script, "--cacert='/etc/etcd/ca.crt'") {
		t.Errorf("external etcd script does not name the endpoints and CA:\n%s", script)
	}
	if e, err := ParseEtcdConfig("etcd:\n  local:\n    dataDir: /var/lib/etcd\n"); err != nil || e.External {
		t.Errorf("stacked: %+v, %v", e, err)
	}
	if _, err := ParseEtcdConfig("etcd: [unclosed"); err == nil {
		t.Error("a broken ClusterConfiguration is accepted")
	}
}

func TestSections(t *testing.T) {
	out := "banner\n" + sectionMark + "a rc=0\none\ntwo\n" + sectionMark + "b rc=3\n\n" + sectionMark + "bogus\nx\n"
	s := sections(out)
	if s["a"].body != "one\ntwo" || s["a"].rc != 0 || s["b"].rc != 3 || s["b"].body != "" || len(s) != 2 {
		t.Errorf("sections: %+v", s)
	}
}
