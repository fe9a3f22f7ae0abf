//go:build integration

package integration_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// shortCert is the certificate TestRealHealthChecksFail brings within days of its end: the API
// server's client certificate to the kubelets on the second controller, re-signed with the same
// key, names and usages, so the cluster keeps working with it.
const shortCert = "/etc/kubernetes/pki/apiserver-kubelet-client.crt"

// removedAPI is an API v1.30 serves and v1.32 removes, as `kubectl get` names it.
const removedAPI = "flowschemas.v1beta3.flowcontrol.apiserver.k8s.io"

// TestRealHealthChecksFail: on a real 2+1 cluster at the lab's first version, the checks before
// the window against an upgrade to its last version (through the minor in between) find what
// would hurt it: a kubeadm-managed certificate 5 days from its end, a client that asked one API
// server for an API the target removes, and a budget that allows no disruption over a
// Deployment with a pod on every node. `upgrade plan` and `upgrade start` fail each check naming
// its objects, exit 3 and record nothing; each check can be skipped by name, the others still
// refusing; with all three skipped the start goes on and records the override.
func TestRealHealthChecksFail(t *testing.T) {
	u := startPristineRealLab(t, false)
	ctx := t.Context()
	n := len(u.lab.Nodes())
	if err := u.lab.DeployProtected(ctx, "protected", n); err != nil {
		t.Fatal(err)
	}
	if err := u.lab.Node("controller-1").ShortenCert(ctx, shortCert, time.Now().Add(5*24*time.Hour+time.Hour)); err != nil {
		t.Fatal(err)
	}
	// kubectl from this machine reaches controller-0's API server alone.
	if out, err := u.lab.KubectlRun(ctx, "get", removedAPI); err != nil {
		t.Fatalf("kubectl get %s: %v\n%s", removedAPI, err, out)
	}
	for _, c := range []string{"controller-0", "controller-1"} {
		t.Logf("%s's API server reports %s requested: %v", c, removedAPI, deprecatedSeen(t, u.lab.Node(c)))
	}
	findings := map[string][]string{
		"certificates": {"controller-1:" + shortCert + " (5 days)"},
		"removed-apis": {"flowcontrol.apiserver.k8s.io/v1beta3/flowschemas (removed in v1.32)"},
		"drain":        blockedPods(t, u.lab, "protected"),
	}
	last := lab.RealLastVersion
	out := u.k.wantExit(t, 3, "upgrade", "plan", last)
	requireFindings(t, out, findings, nil)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "health: ") {
			t.Log(line)
		}
	}
	before := storeRows(t, u)
	out = u.k.wantExit(t, 3, "upgrade", "start", last)
	requireFindings(t, out, findings, nil)
	if !strings.Contains(out, "--skip-check certificates to go on without it") {
		t.Errorf("the refusal does not say how to override a check:\n%s", out)
	}
	if after := storeRows(t, u); after != before || u.k.show(t).State != "" {
		t.Errorf("a refused start wrote to the database: rows %s before, %s after", before, after)
	}
	for skip := range findings {
		out := u.k.wantExit(t, 3, "upgrade", "start", last, "--skip-check", skip)
		requireFindings(t, out, without(findings, skip), []string{skip})
	}
	u.k.wantExit(t, 0, "upgrade", "start", last, "--skip-check", "certificates", "--skip-check", "removed-apis", "--skip-check", "drain")
	if v := u.k.show(t); v.State != "upgrade-started" || v.ToVersion != last {
		t.Errorf("after the start with every failing check skipped: %s to %s, want upgrade-started to %s", v.State, v.ToVersion, last)
	}
	if out := u.k.wantExit(t, 0, "upgrade", "history", "--wide"); !strings.Contains(out, "health checks skipped by --skip-check: certificates, removed-apis, drain") {
		t.Errorf("upgrade history does not record the skipped checks:\n%s", out)
	}
}

// blockedPods are the lines the drain check names for each pod of the Deployment name, whose
// budget of the same name allows no disruption: "default/POD on NODE (budget ...)".
func blockedPods(t *testing.T, l *lab.Lab, name string) []string {
	t.Helper()
	out, err := l.KubectlRun(t.Context(), "get", "pods", "-l", "app="+name, "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName}{"\n"}{end}`)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			lines = append(lines, fmt.Sprintf("default/%s on %s (budget default/%s allows no disruption)", f[0], f[1], name))
		}
	}
	if len(lines) != len(l.Nodes()) {
		t.Fatalf("%s has %d pods, want one per node:\n%s", name, len(lines), out)
	}
	return lines
}

// requireFindings: out has a failed line for each check of findings naming each of its objects,
// a skipped line for each check of skipped, and no other failed line.
func requireFindings(t *testing.T, out string, findings map[string][]string, skipped []string) {
	t.Helper()
	failed := 0
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		rest, ok := strings.CutPrefix(line, "health: fail  ")
		for j := i + 1; ok && j < len(lines) && strings.HasPrefix(lines[j], "    "); j++ {
			line += "\n" + lines[j] // what the check names, a line each under it
		}
		if !ok {
			continue
		}
		failed++
		check, _, _ := strings.Cut(rest, ":")
		objects, ok := findings[check]
		if !ok {
			t.Errorf("check %s failed, want only %v to:\n%s", check, keys(findings), out)
		}
		for _, o := range objects {
			if !strings.Contains(line, o) {
				t.Errorf("the failed %s line does not name %q:\n%s", check, o, line)
			}
		}
	}
	if failed != len(findings) {
		t.Errorf("%d checks failed, want %v:\n%s", failed, keys(findings), out)
	}
	for _, s := range skipped {
		if !strings.Contains(out, "health: skipped "+s+": skipped by --skip-check") {
			t.Errorf("no line says %s was skipped:\n%s", s, out)
		}
	}
}

func without(m map[string][]string, key string) map[string][]string {
	out := maps.Clone(m)
	delete(out, key)
	return out
}

func keys(m map[string][]string) []string { return slices.Sorted(maps.Keys(m)) }

// storeRows counts the rows of every table an upgrade start writes, as one string.
func storeRows(t *testing.T, u *labUnderTest) string {
	t.Helper()
	var counts []string
	for _, table := range []string{"host", "kube_upgrade", "kube_host_upgrade", "kube_upgrade_lease", "kube_upgrade_event"} {
		counts = append(counts, fmt.Sprintf("%s=%d", table, countRows(t, u.db, "SELECT COUNT(*) FROM "+table)))
	}
	return strings.Join(counts, " ")
}

// deprecatedSeen reports whether the API server of the controller node counts a request for
// flowschemas v1beta3 in apiserver_requested_deprecated_apis, asked at its own address.
func deprecatedSeen(t *testing.T, node *lab.Node) bool {
	t.Helper()
	out, err := node.Exec(t.Context(), "sh", "-c", `kubectl --kubeconfig /etc/kubernetes/admin.conf --server "https://$0:6443" get --raw /metrics | grep '^apiserver_requested_deprecated_apis' || true`, node.Address)
	if err != nil {
		t.Fatalf("read the metrics of %s's API server: %v", node.Name, err)
	}
	return strings.Contains(out, `resource="flowschemas"`) && strings.Contains(out, `version="v1beta3"`)
}
