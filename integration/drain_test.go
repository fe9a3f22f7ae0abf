//go:build integration

package integration_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/integration/lab"
)

// TestUpgradePackagesAndDrains: a whole `upgrade run` on a two-controller, one-worker lab whose
// nodes keep kubeadm, kubelet and kubectl as held packages of the v1.29 repository, with a
// Deployment its budget lets lose one pod at a time and a node an operator cordoned by hand.
// Every node ends with the three packages installed and held at the target from the v1.30
// repository, the budget is never broken, the nodes kupgrade cordoned are schedulable again and
// the node it did not cordon stays cordoned.
func TestUpgradePackagesAndDrains(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 2, Workers: 1})
	ctx := t.Context()
	web := lab.Deployment{Name: "web", Replicas: 3, MinAvailable: 2, Nodes: []string{"controller-0", "controller-1", "worker-0"}}
	if err := u.lab.Deploy(ctx, web); err != nil {
		t.Fatal(err)
	}
	kc := "kubectl --kubeconfig /etc/kubernetes/admin.conf "
	if out, err := u.lab.Node("controller-0").Exec(ctx, "sh", "-c", kc+"cordon controller-1"); err != nil {
		t.Fatalf("cordon controller-1 by hand: %v: %s", err, out)
	}
	low := sampleHealthy(t, u.lab, web)
	u.k.wantExit(t, 0, "upgrade", "start", "v1.30.1")
	out := u.k.wantExit(t, 0, "upgrade", "run")
	if n := low(); n < web.MinAvailable {
		t.Errorf("web had %d healthy pods at a moment of the run, below its budget's %d", n, web.MinAvailable)
	}
	requireVersions(t, u.lab, "v1.30.1")
	requirePackages(t, u.lab, "1.30.1-1.1", "v1.30")
	for name, want := range map[string]bool{"controller-0": false, "controller-1": true, "worker-0": false} {
		if got, err := u.lab.Cordoned(ctx, name); err != nil || got != want {
			t.Errorf("%s cordoned = %v (%v) after the upgrade, want %v", name, got, err, want)
		}
	}
	runLog := readRunLog(t, out)
	for _, s := range []string{"pod/web-2 evicted", "node/worker-0 drained", "controller-1 was cordoned by someone else"} {
		if !strings.Contains(runLog, s) {
			t.Errorf("the run log lacks %q:\n%s", s, runLog)
		}
	}
	left, err := u.lab.Node("controller-0").Exec(ctx, "sh", "-c", "grep -l -x node=worker-0 /var/lib/kupgrade-lab/shared/pods/default/* | wc -l")
	if err != nil || strings.TrimSpace(left) != "0" {
		t.Errorf("%s pod(s) of web still on worker-0 after its drain (%v), want 0", strings.TrimSpace(left), err)
	}
}

// readRunLog reads the run log kupgrade names in its output (every task with its output).
func readRunLog(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`kupgrade: run log: (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("kupgrade names no run log:\n%s", out)
	}
	b, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDrainBlockedByBudget: a budget that no eviction can meet ends the worker's kubelet step
// in draining-node-failed after --drain-timeout, naming the pod and the budget with advice about
// the drain (not kubeadm), and `host list` shows it; the worker is left cordoned and its kubelet
// untouched; once the budget is fixed the same command completes from the drain, the worker is
// uncordoned, and each node's kubelet was restarted once in all.
func TestDrainBlockedByBudget(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 1, Workers: 1})
	ctx := t.Context()
	web := lab.Deployment{Name: "web", Replicas: 2, MinAvailable: 2, Nodes: []string{"worker-0"}}
	if err := u.lab.Deploy(ctx, web); err != nil {
		t.Fatal(err)
	}
	u.k.wantExit(t, 0, "upgrade", "start", "v1.30.1")
	start := time.Now()
	out := u.k.wantExit(t, 1, "--drain-timeout", "8s", "upgrade", "run")
	t.Logf("the blocked run took %s", time.Since(start).Round(time.Second))
	for _, s := range []string{`pods/"web-0" -n "default"`, "global timeout reached: 8s", "default/web-pdb (min available 2"} {
		if !strings.Contains(out, s) {
			t.Errorf("the failure does not say %q:\n%s", s, out)
		}
	}
	if st := u.k.show(t).State; st != "upgrading-kubelets" {
		t.Errorf("state %s after the blocked drain, want upgrading-kubelets (the host failed)", st)
	}
	if !strings.Contains(out, "(drain-blocked)") || strings.Contains(out, "kubelet-config") {
		t.Errorf("the advice is not about the drain:\n%s", out)
	}
	if list := u.k.wantExit(t, 0, "host", "list"); !regexp.MustCompile(`worker-0 .*draining-node-failed`).MatchString(list) {
		t.Errorf("host list does not show worker-0 draining-node-failed:\n%s", list)
	}
	if got, err := u.lab.Cordoned(ctx, "worker-0"); err != nil || !got {
		t.Errorf("worker-0 cordoned = %v (%v) after the blocked drain, want true", got, err)
	}
	if pkgs, err := u.lab.Node("worker-0").Packages(ctx); err != nil || pkgs["kubelet"].Version != "1.29.4-1.1" {
		t.Errorf("worker-0's kubelet package %+v (%v) after the blocked drain, want 1.29.4-1.1: nothing installed before the drain", pkgs["kubelet"], err)
	}
	if err := u.lab.SetBudget(ctx, web, 1); err != nil {
		t.Fatal(err)
	}
	u.k.wantExit(t, 0, "--drain-timeout", "8s", "upgrade", "run")
	requireVersions(t, u.lab, "v1.30.1")
	requirePackages(t, u.lab, "1.30.1-1.1", "v1.30")
	if got, err := u.lab.Cordoned(ctx, "worker-0"); err != nil || got {
		t.Errorf("worker-0 cordoned = %v (%v) after the retry, want false", got, err)
	}
	for _, n := range []string{"controller-0", "worker-0"} {
		restarts, err := u.lab.Node(n).Exec(ctx, "sh", "-c", "grep -c ' kubelet v1.30.1 restarted' /var/log/kupgrade-lab/events.log")
		if err != nil || strings.TrimSpace(restarts) != "1" {
			t.Errorf("%s's kubelet restarted %s time(s) (%v), want once", n, strings.TrimSpace(restarts), err)
		}
	}
}

// TestPackageFailures: an install that dpkg fails half way is the control-plane step's failed
// twin with dpkg's message and the versions installed and held after it (in the probe's finding
// too), and the retry (which finishes the interrupted dpkg first) completes; a version the
// repository does not offer is refused by `upgrade start`'s packages check and, past it, fails
// the step before kubeadm runs, naming the package, the version and the repository.
func TestPackageFailures(t *testing.T) {
	t.Parallel()
	u := startLab(t, lab.Options{Controllers: 1, Workers: 1})
	ctx := t.Context()
	injectFault(t, u.lab.Node("controller-0"), lab.Fault{Phase: "dpkg-unpack", Before: true, Action: lab.Exit, Status: 100, Once: true})
	u.k.wantExit(t, 0, "upgrade", "start", "v1.30.1")
	out := u.k.wantExit(t, 1, "upgrade", "run")
	if st := u.k.show(t).State; st != "upgrading-first-master-failed" {
		t.Errorf("state %s after dpkg failed, want upgrading-first-master-failed", st)
	}
	for _, s := range []string{"E: Sub-process /usr/bin/dpkg returned an error code (1)", "kupgrade: installed now: kubeadm 1.29.4-1.1 (held)",
		"Installed now: kubeadm 1.29.4-1.1 (held), kubelet 1.29.4-1.1 (held), kubectl 1.29.4-1.1 (held)."} {
		if !strings.Contains(out, s) {
			t.Errorf("the failure does not say %q:\n%s", s, out)
		}
	}
	u.k.wantExit(t, 0, "upgrade", "run")
	requireVersions(t, u.lab, "v1.30.1")
	requirePackages(t, u.lab, "1.30.1-1.1", "v1.30")

	u.k.wantExit(t, 0, "upgrade", "delete")
	if err := u.lab.Withdraw(ctx, "v1.30.2"); err != nil {
		t.Fatal(err)
	}
	out = u.k.wantExit(t, 3, "upgrade", "start", "v1.30.2")
	if !strings.Contains(out, "controller-0: kubeadm v1.30.2 is not offered by the repository") {
		t.Errorf("the start is not refused by the packages check:\n%s", out)
	}
	// Past the check, the install itself refuses the version, naming the repository.
	u.k.wantExit(t, 0, "upgrade", "start", "v1.30.2", "--skip-check", "packages")
	out = u.k.wantExit(t, 1, "upgrade", "run")
	if !strings.Contains(out, "no repository offers kubeadm 1.30.2") || !strings.Contains(out, "core:/stable:/v1.30/deb") {
		t.Errorf("the failure does not name the package and the repository:\n%s", out)
	}
	if st := u.k.show(t).State; st != "upgrading-first-master-failed" {
		t.Errorf("state %s after the refused install, want upgrading-first-master-failed", st)
	}
	requirePackages(t, u.lab, "1.30.1-1.1", "v1.30")
}

// requirePackages: every node has kubeadm, kubelet and kubectl at version, held, and its source
// names minor.
func requirePackages(t *testing.T, l *lab.Lab, version, minor string) {
	t.Helper()
	for _, n := range l.Nodes() {
		pkgs, err := n.Packages(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range lab.K8sPackages {
			if got := pkgs[p]; got.Version != version || !got.Held {
				t.Errorf("%s: package %s %+v, want %s held", n.Name, p, got, version)
			}
		}
		if got, err := n.RepoMinor(t.Context()); err != nil || got != minor {
			t.Errorf("%s: package source names %q (%v), want %s", n.Name, got, err, minor)
		}
	}
}

// sampleHealthy counts d's healthy pods every 200 ms until the test ends; the returned function
// stops the sampling and gives the lowest count seen.
func sampleHealthy(t *testing.T, l *lab.Lab, d lab.Deployment) func() int {
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	low := d.Replicas
	wg.Go(func() {
		for ctx.Err() == nil {
			if n, err := l.Healthy(ctx, d); err == nil && n < low {
				low = n
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	})
	t.Cleanup(cancel)
	return func() int {
		cancel()
		wg.Wait()
		return low
	}
}
