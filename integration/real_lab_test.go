//go:build integration

package integration_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/inventory"
)

// TestRealLab: a pristine real lab is what an operator who followed kubeadm's install guide
// has: kubeadm, kubelet and kubectl of the first version installed from the lab's Debian
// repository of that minor and held, the apt source naming the minor, every version named in
// order in the inventory, and no budget that blocks a drain. Its external etcd is a host of the
// inventory's etcd group, reached over SSH, running etcd.service, with the controllers' etcdctl
// reaching it. Crossing minors the packages' way
// (rewrite the source, unhold, install, hold) reaches the last version. The test workload's
// budget lets a drain through when it allows a disruption and stops it when it does not.
func TestRealLab(t *testing.T) {
	l := lab.StartReal(t, lab.RealOptions{Controllers: 1, Workers: 1, Pristine: true})
	ctx := t.Context()
	from, last := lab.RealFromVersion, lab.RealLastVersion
	requireInventoryVersions(t, l)
	requireEtcdHost(t, l)
	for _, n := range l.Nodes() {
		requireRealPackages(t, n, from, "kubeadm", "kubelet", "kubectl")
	}
	if blocking, err := l.BlockingBudgets(ctx); err != nil || len(blocking) > 0 {
		t.Errorf("a real lab that comes up has budgets blocking a drain: %v (%v)", blocking, err)
	}

	w := l.Node("worker-0")
	if out, err := w.Exec(ctx, lab.RealInstallCommand, "kubeadm", last); err != nil {
		t.Fatalf("install kubeadm %s the packages' way on worker-0: %v\n%s", last, err, out)
	}
	requireRealPackages(t, w, last, "kubeadm")
	requireRealPackages(t, w, from, "kubelet", "kubectl")
	requests, err := l.PackageRequests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GET /core:/stable:/v1.30/deb/Packages 200", "GET /core:/stable:/v1.32/deb/Packages 200"} {
		if !slices.Contains(requests, want) {
			t.Errorf("the package server never answered %q; it answered:\n%s", want, strings.Join(requests, "\n"))
		}
	}
	requireBudgetDrain(t, l)
}

// requireInventoryVersions: the inventory names the lab's versions in order.
func requireInventoryVersions(t *testing.T, l *lab.Lab) {
	t.Helper()
	inv, err := inventory.Load(l.Inventory())
	if err != nil {
		t.Fatal(err)
	}
	h, _ := inv.Host("controller-0")
	got, _ := h.Vars["kupgrade_lab_versions"].([]any)
	var names []string
	for _, v := range got {
		s, _ := v.(string)
		names = append(names, s)
	}
	if !slices.Equal(names, lab.RealVersions) {
		t.Errorf("kupgrade_lab_versions = %v, want %v", h.Vars["kupgrade_lab_versions"], lab.RealVersions)
	}
}

// requireEtcdHost: the lab's external etcd host is no node, answers SSH as sysadmin with the
// host key of known_hosts, runs etcd as its unit, and controller-0's etcdctl lists it as the
// one member.
func requireEtcdHost(t *testing.T, l *lab.Lab) {
	t.Helper()
	e := l.EtcdHost()
	if e == nil || l.Node(e.Name) != nil {
		t.Fatalf("the real lab's etcd host: %v (a node: %v)", e, e != nil && l.Node(e.Name) != nil)
	}
	c, err := e.Dial(t.Context())
	if err != nil {
		t.Fatalf("SSH to %s: %v", e.Name, err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if out, err := s.CombinedOutput("sudo systemctl is-active etcd"); err != nil || strings.TrimSpace(string(out)) != "active" {
		t.Errorf("systemctl is-active etcd on %s over SSH: %q (%v)", e.Name, out, err)
	}
	out, err := l.Node("controller-0").Exec(t.Context(), "etcdctl", "--endpoints=http://"+e.Address+":2379", "member", "list")
	if err != nil || strings.Count(out, ", started, ") != 1 || !strings.Contains(out, ", "+e.Name+", ") {
		t.Errorf("etcdctl member list on controller-0: %q (%v), want %s alone", out, err, e.Name)
	}
}

// requireRealPackages: on n, each package is installed at version from the lab's repository, held,
// and the apt source names version's minor when it is kubeadm's.
func requireRealPackages(t *testing.T, n *lab.Node, version string, pkgs ...string) {
	t.Helper()
	ctx := t.Context()
	deb := strings.TrimPrefix(version, "v") + "-1.1"
	held, err := n.Exec(ctx, "apt-mark", "showhold")
	if err != nil {
		t.Fatalf("apt-mark showhold on %s: %v", n.Name, err)
	}
	for _, p := range pkgs {
		got, err := n.Exec(ctx, "dpkg-query", "-W", "-f", "${Version} ${Status}", p)
		if want := deb + " hold ok installed"; err != nil || got != want {
			t.Errorf("%s on %s: dpkg-query says %q (%v), want %q", p, n.Name, got, err, want)
		}
		if !slices.Contains(strings.Fields(held), p) {
			t.Errorf("%s on %s is not held (apt-mark showhold: %q)", p, n.Name, held)
		}
		if p == "kubeadm" {
			if v, err := n.Exec(ctx, "kubeadm", "version", "-o", "short"); err != nil || strings.TrimSpace(v) != version {
				t.Errorf("kubeadm version on %s: %q (%v), want %s", n.Name, v, err, version)
			}
			src, _ := n.Exec(ctx, "cat", "/etc/apt/sources.list.d/kubernetes.list")
			if minor := version[:strings.LastIndex(version, ".")]; !strings.Contains(src, "/core:/stable:/"+minor+"/deb/") {
				t.Errorf("the apt source on %s does not name %s: %q", n.Name, minor, src)
			}
		}
	}
}

// requireBudgetDrain: with a budget allowing one disruption a drain of the worker goes through
// and the workload stays at its budget; made unmeetable, the budget stops the next drain, and
// kubectl names it.
func requireBudgetDrain(t *testing.T, l *lab.Lab) {
	t.Helper()
	ctx := t.Context()
	n := len(l.Nodes())
	if err := l.DeployProtected(ctx, "protected", n-1); err != nil {
		t.Fatal(err)
	}
	if blocking, err := l.BlockingBudgets(ctx); err != nil || len(blocking) > 0 {
		t.Errorf("a budget allowing one disruption blocks: %v (%v)", blocking, err)
	}
	drain := []string{"drain", "worker-0", "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=60s"}
	if out, err := l.KubectlRun(ctx, drain...); err != nil {
		t.Fatalf("drain worker-0 under a budget allowing one disruption: %v\n%s", err, out)
	}
	if got, err := l.Available(ctx, "protected"); err != nil || got < n-1 {
		t.Errorf("after the drain %d pods of protected are available (%v), want at least %d", got, err, n-1)
	}
	if _, err := l.KubectlRun(ctx, "uncordon", "worker-0"); err != nil {
		t.Fatal(err)
	}
	if err := l.SetRealBudget(ctx, "protected", n); err != nil {
		t.Fatal(err)
	}
	if blocking, err := l.BlockingBudgets(ctx); err != nil || !slices.Contains(blocking, "default/protected") {
		t.Errorf("an unmeetable budget is not reported blocking: %v (%v)", blocking, err)
	}
	drain[len(drain)-1] = "--timeout=15s"
	drain[1] = "controller-0"
	out, err := l.KubectlRun(ctx, drain...)
	if err == nil || !strings.Contains(out, "disruption budget") {
		t.Errorf("drain under an unmeetable budget: %v, want a failure naming the budget:\n%s", err, out)
	}
}
