package health

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

func v(t *testing.T, s string) state.Version {
	t.Helper()
	ver, err := state.ParseVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return ver
}

// clusterOutput is ClusterScript's output for a healthy 2+1 cluster at v1.30.14 with external
// etcd, changed by edit.
func clusterOutput(edit func(map[string]string)) string {
	secs := map[string]string{
		"nodes": `{"items":[` + nodeJSON("controller-0", true, true, "v1.30.14") + "," +
			nodeJSON("controller-1", true, true, "v1.30.14") + "," + nodeJSON("worker-0", false, true, "v1.30.14") + `]}`,
		"pods": `{"items":[` + strings.Join(controlPlanePods("v1.30.14", "controller-0", "controller-1"), ",") + "," +
			`{"metadata":{"name":"web-1","namespace":"default","labels":{"app":"web"},"ownerReferences":[{"kind":"ReplicaSet"}]},"spec":{"nodeName":"worker-0"},"status":{"phase":"Running"}},` +
			`{"metadata":{"name":"kube-proxy-x","namespace":"kube-system","ownerReferences":[{"kind":"DaemonSet"}]},"spec":{"nodeName":"worker-0"},"status":{"phase":"Running"}}]}`,
		"pdbs":           `{"items":[{"metadata":{"name":"web","namespace":"default"},"spec":{"selector":{"matchLabels":{"app":"web"}}},"status":{"disruptionsAllowed":1}}]}`,
		"metrics":        "",
		"kubeadm-config": "etcd:\n  external:\n    endpoints: [http://etcd:2379]\n",
		"readyz-etcd":    "ok",
	}
	if edit != nil {
		edit(secs)
	}
	var b strings.Builder
	b.WriteString("some login banner\n")
	for _, name := range []string{"nodes", "pods", "pdbs", "metrics", "kubeadm-config", "readyz-etcd"} {
		rc := 0
		body := secs[name]
		if r, ok := strings.CutPrefix(body, "rc="); ok {
			code, rest, _ := strings.Cut(r, " ")
			fmt.Sscan(code, &rc)
			body = rest
		}
		fmt.Fprintf(&b, "%s%s rc=%d\n%s\n", sectionMark, name, rc, body)
	}
	return b.String()
}

func nodeJSON(name string, controller, ready bool, kubelet string) string {
	labels := `{}`
	if controller {
		labels = `{"node-role.kubernetes.io/control-plane":""}`
	}
	return fmt.Sprintf(`{"metadata":{"name":%q,"labels":%s},"status":{"conditions":[{"type":"Ready","status":%q}],"nodeInfo":{"kubeletVersion":%q}}}`,
		name, labels, map[bool]string{true: "True", false: "False"}[ready], kubelet)
}

func controlPlanePods(version string, nodes ...string) []string {
	var out []string
	for _, n := range nodes {
		for _, c := range controlPlaneComponents {
			out = append(out, fmt.Sprintf(`{"metadata":{"name":"%s-%s","namespace":"kube-system","labels":{"component":%q},"annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"nodeName":%q,"containers":[{"image":"registry.k8s.io/%s:%s"}]},"status":{"phase":"Running"}}`,
				c, n, c, n, c, version))
		}
	}
	return out
}

const healthyEtcd = sectionMark + "members rc=0\n" + `{"members":[{"name":"etcd","peerURLs":["http://etcd:2380"]}]}` + "\n" +
	sectionMark + "health rc=0\n" + `[{"endpoint":"http://etcd:2379","health":true}]` + "\n"

func hostOutput(certs string) string { return sectionMark + "certs rc=0\n" + certs + "\n" }

var now = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

const goodCerts = "/etc/kubernetes/pki/apiserver.crt notAfter=Dec  4 12:00:00 2027 GMT\n/etc/kubernetes/admin.conf notAfter=Dec  4 12:00:00 2027 GMT"

func statuses(rs []Result) map[string]Result {
	out := map[string]Result{}
	for _, r := range rs {
		out[r.Check] = r
	}
	return out
}

// Each fault in the cluster fails (or warns) its own check, naming what is wrong, and leaves
// the others passing.
func TestJudge(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(map[string]string)
		certs   string
		etcd    string
		opts    func(*Options)
		check   string
		also    []string // further checks that fail
		status  Status
		objects []string
	}{
		{name: "healthy", check: "", status: Pass},
		{name: "a control-plane pod restarted a moment ago, not Ready yet", check: "", status: Pass,
			edit: func(s map[string]string) {
				s["pods"] = strings.Replace(s["pods"], `kube-scheduler:v1.30.14"}]},"status":{"phase":"Running"}`,
					`kube-scheduler:v1.30.14"}]},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"False"}]}`, 1)
			}},
		{name: "node not ready", check: CheckNodes, status: Fail, objects: []string{"worker-0"},
			edit: func(s map[string]string) {
				s["nodes"] = strings.Replace(s["nodes"], nodeJSON("worker-0", false, true, "v1.30.14"), nodeJSON("worker-0", false, false, "v1.30.14"), 1)
			}},
		{name: "control plane behind", check: CheckControlPlane, status: Fail,
			objects: []string{"kube-system/kube-scheduler-controller-1 (v1.29.4, want v1.30.14)"},
			edit: func(s map[string]string) {
				s["pods"] = strings.Replace(s["pods"], `"name":"kube-scheduler-controller-1","namespace":"kube-system","labels":{"component":"kube-scheduler"},"annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"nodeName":"controller-1","containers":[{"image":"registry.k8s.io/kube-scheduler:v1.30.14"`,
					`"name":"kube-scheduler-controller-1","namespace":"kube-system","labels":{"component":"kube-scheduler"},"annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"nodeName":"controller-1","containers":[{"image":"registry.k8s.io/kube-scheduler:v1.29.4"`, 1)
			}},
		{name: "kubelet too old for the target", check: CheckKubeletSkew, status: Fail, objects: []string{"worker-0 (kubelet v1.28.9)"},
			opts: func(o *Options) { o.To = state.Version{Major: 1, Minor: 32, Patch: 2} },
			edit: func(s map[string]string) {
				s["nodes"] = strings.Replace(s["nodes"], nodeJSON("worker-0", false, true, "v1.30.14"), nodeJSON("worker-0", false, true, "v1.28.9"), 1)
			}},
		{name: "certificate expiring", check: CheckCerts, status: Fail,
			objects: []string{"controller-0:/etc/kubernetes/pki/front-proxy-client.crt (3 days)"},
			certs:   goodCerts + "\n/etc/kubernetes/pki/front-proxy-client.crt notAfter=Dec  7 13:00:00 2026 GMT"},
		{name: "removed API in use", check: CheckRemovedAPIs, status: Fail,
			objects: []string{"flowcontrol.apiserver.k8s.io/v1beta3/flowschemas (removed in v1.32)"},
			opts:    func(o *Options) { o.To = state.Version{Major: 1, Minor: 32, Patch: 2} },
			edit: func(s map[string]string) {
				s["metrics"] = `apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="",version="v1beta3"} 1`
			}},
		{name: "budget allows no disruption", check: CheckDrain, status: Fail,
			objects: []string{"default/web-1 on worker-0 (budget default/web allows no disruption)"},
			edit: func(s map[string]string) {
				s["pdbs"] = strings.Replace(s["pdbs"], `"disruptionsAllowed":1`, `"disruptionsAllowed":0`, 1)
			}},
		{name: "etcd member down", check: CheckEtcd, status: Fail, objects: []string{"http://etcd:2379 (context deadline exceeded)"},
			etcd: sectionMark + "members rc=0\n" + `{"members":[{"name":"etcd"}]}` + "\n" + sectionMark + "health rc=1\n" +
				`[{"endpoint":"http://etcd:2379","health":false,"error":"context deadline exceeded"}]` + "\nError: unhealthy cluster\n"},
		{name: "etcd without etcdctl", check: CheckEtcd, status: Warn,
			etcd: sectionMark + "etcdctl rc=127\netcdctl: not found\n"},
		{name: "pods unreadable", check: CheckControlPlane, also: []string{CheckDrain}, status: Fail,
			edit: func(s map[string]string) { s["pods"] = "rc=1 error: the server was unable to return a response" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Options{From: v(t, "v1.30.14"), To: v(t, "v1.31.1"), Now: now}
			if c.opts != nil {
				c.opts(&o)
			}
			certs, etcdOut := c.certs, c.etcd
			if certs == "" {
				certs = goodCerts
			}
			if etcdOut == "" {
				etcdOut = healthyEtcd
			}
			f := Facts{Cluster: clusterOutput(c.edit), Etcd: etcdOut, Hosts: map[string]string{"controller-0": hostOutput(certs), "controller-1": hostOutput(goodCerts)}}
			rs := Judge(f, o)
			if len(rs) != len(Names) {
				t.Fatalf("%d results, want one per check:\n%v", len(rs), rs)
			}
			for _, r := range rs {
				want := Pass
				if r.Check == c.check || slices.Contains(c.also, r.Check) {
					want = c.status
				}
				if r.Status != want {
					t.Errorf("%s: %s, want %s", r.Check, r, want)
				}
				if r.Check == c.check && c.objects != nil && !slices.Equal(r.Objects, c.objects) {
					t.Errorf("%s names %q, want %q", r.Check, r.Objects, c.objects)
				}
			}
		})
	}
}

// A skipped check is a line of its own and is not judged; an unknown name is refused with the
// names there are.
func TestSkip(t *testing.T) {
	o := Options{From: v(t, "v1.30.14"), To: v(t, "v1.31.1"), Now: now, Skip: []string{CheckDrain}}
	edit := func(s map[string]string) {
		s["pdbs"] = strings.Replace(s["pdbs"], `"disruptionsAllowed":1`, `"disruptionsAllowed":0`, 1)
	}
	f := Facts{Cluster: clusterOutput(edit), Etcd: healthyEtcd, Hosts: map[string]string{"controller-0": hostOutput(goodCerts)}}
	got := statuses(Judge(f, o))[CheckDrain]
	if got.Status != Skipped || len(Failed(Judge(f, o))) != 0 {
		t.Errorf("skipped drain check: %s; failed: %v", got, Failed(Judge(f, o)))
	}
	err := CheckSkips([]string{"certs"})
	if err == nil || !strings.Contains(err.Error(), CheckCerts) {
		t.Errorf("CheckSkips(certs) = %v, want a refusal naming %s", err, CheckCerts)
	}
}

// A controller without kubectl runs no check of the cluster: every such line fails saying it
// cannot run (fail closed); the packages check, asked of each host's package manager, still
// judges (here a version no repository offers), and so do the certificates, read with openssl. Without a version given, the control plane's is its lowest
// kube-apiserver's.
func TestJudgeWithout(t *testing.T) {
	f := Facts{Cluster: sectionMark + "nodes rc=127\nsh: 1: kubectl: not found\n",
		Packages: map[string]string{"worker-0": hostPackages(false)}, Hops: []state.Version{v(t, "v1.31.9")}}
	f.Hosts = map[string]string{"controller-0": hostOutput(goodCerts)}
	rs := Judge(f, Options{To: v(t, "v1.31.9"), Skip: []string{CheckEtcd}, Now: now,
		Packages: []PackageHost{{Name: "worker-0", Kubeadm: true, Kubelets: true}}})
	for _, r := range rs {
		want := Fail
		switch r.Check {
		case CheckCerts:
			if r.Status != Pass {
				t.Errorf("without kubectl: %s, want the certificates judged from openssl's lines", r)
			}
			continue
		case CheckEtcd:
			want = Skipped
		case CheckPackages:
			if r.Status != Fail || !strings.Contains(r.Objects[0], "worker-0: kubeadm v1.31.9 is not offered") {
				t.Errorf("without kubectl: %s, want the packages check failing", r)
			}
			continue
		}
		if r.Status != want || (want == Fail && !strings.Contains(r.Message, "cannot run: on the first controller: sh: 1: kubectl: not found")) {
			t.Errorf("without kubectl: %s, want %s saying so", r, want)
		}
	}
	edit := func(s map[string]string) {
		s["pods"] = strings.Replace(s["pods"], "kube-apiserver:v1.30.14", "kube-apiserver:v1.29.4", 1)
	}
	f = Facts{Cluster: clusterOutput(edit), Etcd: healthyEtcd, Hosts: map[string]string{"controller-0": hostOutput(goodCerts)}}
	r := statuses(Judge(f, Options{To: v(t, "v1.31.1"), Now: now}))[CheckControlPlane]
	if r.Status != Fail || !strings.Contains(r.Message, "v1.29.4") || len(r.Objects) != 5 {
		t.Errorf("control plane judged against its lowest kube-apiserver: %s", r)
	}
	host := Facts{Cluster: clusterOutput(nil), Etcd: healthyEtcd, Hosts: map[string]string{"controller-0": sectionMark + "certs rc=127\nopenssl: not found\n"}}
	if r := statuses(Judge(host, Options{To: v(t, "v1.31.1"), Now: now}))[CheckCerts]; r.Status != Fail || r.Message != "cannot run: controller-0: openssl: not found" {
		t.Errorf("without openssl: %s, want a failure saying it cannot run", r)
	}
	host.Hosts["controller-0"] = sectionMark + "certs rc=0\n"
	if r := statuses(Judge(host, Options{To: v(t, "v1.31.1"), Now: now}))[CheckCerts]; r.Status != Fail || !strings.Contains(r.Message, "cannot run: no certificate found") {
		t.Errorf("no certificate found: %s, want a failure saying it cannot run", r)
	}
}
