package health

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kupgrade/kupgrade/internal/testtree"
)

// fakeKubectl answers the metrics lines as two controllers' API servers would: the pods list
// names their endpoints ($ENDPOINTS), a request with --server=https://10.0.0.2:6443 is answered
// by the API server that saw a client ask for flowschemas.v1beta3 (twice, as the metric has a
// series per subresource), one to 10.0.0.9 finds nobody, and any other API server (admin.conf's
// endpoint included) saw nothing removed.
const fakeKubectl = `#!/bin/sh
for a; do
  case $a in
  pods) printf '%s' "$ENDPOINTS"; exit 0 ;;
  --server=https://10.0.0.2:6443)
    echo '# TYPE apiserver_requested_deprecated_apis gauge'
    echo 'apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="",version="v1beta3"} 1'
    echo 'apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="status",version="v1beta3"} 1'
    exit 0 ;;
  --server=https://10.0.0.9:6443) echo "Unable to connect to the server: dial tcp 10.0.0.9:6443: connect: connection refused" >&2; exit 1 ;;
  esac
done
echo 'apiserver_request_total{code="200"} 7'
echo 'apiserver_requested_deprecated_apis{group="",removed_release="",resource="componentstatuses",subresource="",version="v1"} 1'
`

// The removed-APIs check asks every API server for its deprecated-API metric, not the one
// admin.conf's endpoint happens to reach: a removed API called through the second controller
// alone still fails the check; an API server that cannot be asked fails it naming that server;
// pods without kubeadm's endpoint annotation are asked through admin.conf's endpoint.
func TestRemovedAPIsAskEveryAPIServer(t *testing.T) {
	dir := testtree.Write(t, map[string]string{"bin/kubectl": fakeKubectl})
	bin := filepath.Join(dir, "bin")
	if err := os.Chmod(filepath.Join(bin, "kubectl"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := Options{From: v(t, "v1.30.14"), To: v(t, "v1.32.2")}
	cases := []struct {
		name, endpoints string
		status          Status
		want            []string
		message         string
	}{
		{"the second API server saw it", "10.0.0.1:6443 10.0.0.2:6443 ", Fail,
			[]string{"flowcontrol.apiserver.k8s.io/v1beta3/flowschemas (removed in v1.32)"}, "APIs in use that v1.32.2 removes (apiserver_requested_deprecated_apis)"},
		{"one API server cannot be asked", "10.0.0.2:6443 10.0.0.9:6443 ", Fail, nil,
			"read the API servers' metrics: API server 10.0.0.9:6443: Unable to connect to the server: dial tcp 10.0.0.9:6443: connect: connection refused"},
		{"no endpoint annotation", " ", Pass, nil, "1 deprecated APIs requested, none removed by v1.32.2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("/bin/sh", "-c", runner+metricsLines)
			cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "ENDPOINTS=" + c.endpoints}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("script: %v\n%s", err, out)
			}
			r := apisCheck(sections(string(out))["metrics"], o)
			if r.Status != c.status || !slices.Equal(r.Objects, c.want) || r.Message != c.message {
				t.Errorf("%s, want %s %q naming %q; the script said:\n%s", r, c.status, c.message, c.want, out)
			}
		})
	}
}
