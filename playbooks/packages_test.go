package playbooks

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/jinja"
)

// fakeApt is a folder of stand-ins for apt-get, apt-mark, apt-cache, dpkg and dpkg-query that
// log each call (one line: the tool and its arguments) and answer from a few files: offered
// (the versions apt-cache madison lists), fail (apt-get install exits 100 with it on stderr) and
// block (apt-get install, having touched installing, waits while it exists).
type fakeApt struct{ dir, log string }

func newFakeApt(t *testing.T, offered string) fakeApt {
	t.Helper()
	dir := t.TempDir()
	f := fakeApt{dir: dir, log: filepath.Join(dir, "calls")}
	tools := map[string]string{
		"apt-get": `case "$1" in install) touch "$D/installing"; while [ -f "$D/block" ]; do sleep 0.05; done
			if [ -f "$D/fail" ]; then cat "$D/fail" >&2; exit 100; fi ;; esac`,
		"apt-mark":   ``,
		"dpkg":       ``,
		"dpkg-query": `echo "kubeadm 1.31.1-1.1 hold ok installed"`,
		"apt-cache":  `for v in $(cat "$D/offered"); do echo "   $2 | $v | file:/repo/core:/stable:/v1.31/deb Packages"; done`,
	}
	for name, body := range tools {
		script := "#!/bin/sh\nD=" + dir + "\necho \"" + name + " $*\" >> \"$D/calls\"\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "offered"), []byte(offered), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// runPkgInstall runs the kubelet playbook's k8s_pkg_install for packages at version with the fake
// apt first on PATH and /etc/apt moved to a scratch folder holding source; it returns the output,
// the exit error, the calls and the source file afterwards.
func runPkgInstall(t *testing.T, f fakeApt, source, packages, version string) (string, error, []string, string) {
	t.Helper()
	cmd, list := pkgInstallCmd(t, f, source, packages, version)
	out, err := cmd.CombinedOutput()
	calls, _ := os.ReadFile(f.log)
	after, _ := os.ReadFile(list)
	return string(out), err, strings.Split(strings.TrimSpace(string(calls)), "\n"), string(after)
}

// pkgInstallCmd is the command runPkgInstall runs, and the source file it gives it.
func pkgInstallCmd(t *testing.T, f fakeApt, source, packages, version string) (*exec.Cmd, string) {
	t.Helper()
	vars := map[string]any{"to_version": "v" + version, "group_names": []any{"workers"}, "inventory_hostname": "worker-0",
		"groups": map[string]any{"controllers": []any{"controller-0"}}}
	renderPlayVars(t, mustEmbedded(t, "kubelet").Plays[0].Vars, vars)
	etc := t.TempDir()
	list := filepath.Join(etc, "sources.list.d", "kubernetes.list")
	if err := os.MkdirAll(filepath.Dir(list), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	script := strings.ReplaceAll(vars["k8s_pkg_install"].(string), "/etc/apt", etc)
	cmd := exec.CommandContext(t.Context(), "sh", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+f.dir+":"+os.Getenv("PATH"), "KUPGRADE_PACKAGES="+packages,
		"KUPGRADE_VERSION="+version, "KUPGRADE_PKG_MGR=apt", "KUPGRADE_PKG_STATE="+f.state())
	return cmd, list
}

// state is the install's state folder (/var/lib/kupgrade/packages on a host).
func (f fakeApt) state() string { return filepath.Join(f.dir, "state") }

func mustEmbedded(t *testing.T, name string) *Playbook {
	t.Helper()
	pb, err := Embedded(name)
	if err != nil {
		t.Fatal(err)
	}
	return pb
}

const k8sSource = "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] file:/repo/core:/stable:/v1.30/deb/ /\n"

// The default install moves the host's own source line to the version's minor (nothing else of
// it), refreshes that source alone, then unhold, install the exact version, hold again.
func TestPackageInstallRewritesTheMinorThenUnholdInstallHold(t *testing.T) {
	f := newFakeApt(t, "1.31.2-1.1 1.31.1-1.1")
	out, err, calls, source := runPkgInstall(t, f, k8sSource, "kubelet kubectl", "1.31.1")
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if want := strings.Replace(k8sSource, "v1.30", "v1.31", 1); source != want {
		t.Errorf("source after the install:\n%s\nwant\n%s", source, want)
	}
	var order []string
	for _, c := range calls {
		switch {
		case strings.HasPrefix(c, "apt-get update"):
			if !strings.Contains(c, "Dir::Etc::sourceparts=-") {
				t.Errorf("apt-get update refreshes more than the Kubernetes source: %s", c)
			}
			order = append(order, "update")
		case c == "apt-mark unhold kubelet kubectl":
			order = append(order, "unhold")
		case strings.HasPrefix(c, "apt-get install") && strings.HasSuffix(c, "kubelet=1.31.1-* kubectl=1.31.1-*"):
			order = append(order, "install")
		case c == "apt-mark hold kubelet kubectl":
			order = append(order, "hold")
		}
	}
	if got := strings.Join(order, ","); got != "update,unhold,install,hold" {
		t.Errorf("steps %s, want update,unhold,install,hold; calls:\n%s", got, strings.Join(calls, "\n"))
	}
}

// A failed install keeps apt's message and status, and the packages are held again.
func TestPackageInstallFailureHoldsAgain(t *testing.T) {
	f := newFakeApt(t, "1.31.1-1.1")
	msg := "E: Sub-process /usr/bin/dpkg returned an error code (1)"
	if err := os.WriteFile(filepath.Join(f.dir, "fail"), []byte(msg+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err, calls, _ := runPkgInstall(t, f, k8sSource, "kubeadm", "1.31.1")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 100 || !strings.Contains(out, msg) {
		t.Fatalf("install = %v, want exit 100 with apt's message:\n%s", err, out)
	}
	if !slices.Contains(calls, "apt-mark hold kubeadm") || slices.Index(calls, "apt-mark hold kubeadm") < slices.IndexFunc(calls, func(c string) bool {
		return strings.HasPrefix(c, "apt-get install")
	}) {
		t.Errorf("kubeadm not held again after the failed install; calls:\n%s", strings.Join(calls, "\n"))
	}
	if !strings.Contains(out, "kupgrade: installed now: kubeadm 1.31.1-1.1 (held)") {
		t.Errorf("the failure does not say what is installed and held now:\n%s", out)
	}
}

// A version no repository offers is refused before anything is unheld or installed, naming
// the package, the version and the repository.
func TestPackageInstallRefusesAVersionNotOffered(t *testing.T) {
	f := newFakeApt(t, "1.31.1-1.1")
	out, err, calls, _ := runPkgInstall(t, f, k8sSource, "kubeadm", "1.31.99")
	if err == nil || !strings.Contains(out, "no repository offers kubeadm 1.31.99") ||
		!strings.Contains(out, "file:/repo/core:/stable:/v1.31/deb/") {
		t.Fatalf("install = %v, want a refusal naming the package and the repository:\n%s", err, out)
	}
	for _, c := range calls {
		if strings.HasPrefix(c, "apt-mark") || strings.HasPrefix(c, "apt-get install") {
			t.Errorf("%q ran before the refusal", c)
		}
	}
}

// A host with no source of the Kubernetes packages is told what to add or set.
func TestPackageInstallWithoutASource(t *testing.T) {
	f := newFakeApt(t, "")
	out, err, _, _ := runPkgInstall(t, f, "deb file:/debian bookworm main\n", "kubeadm", "1.31.1")
	if err == nil || !strings.Contains(out, "kupgrade_kubeadm_install") {
		t.Fatalf("install = %v, want a refusal saying what to set:\n%s", err, out)
	}
}

// Every playbook that installs packages carries the same default (abort's puts kubeadm back).
func TestPackageInstallIsTheSameInEveryPlaybook(t *testing.T) {
	a := mustEmbedded(t, "kubelet").Plays[0].Vars["k8s_pkg_install"]
	for _, name := range []string{"control-plane", "abort"} {
		if b := mustEmbedded(t, name).Plays[0].Vars["k8s_pkg_install"]; a == nil || a != b {
			t.Errorf("k8s_pkg_install differs between kubelet.yml and %s.yml", name)
		}
	}
}

// A drain that a budget blocks fails naming every pod kubectl could not evict and the budgets
// that allow no disruption; a drain that unmanaged pods refuse names them and the way out.
func TestDrainFailureNamesPodsAndBudgets(t *testing.T) {
	timeout := []any{
		`evicting pod default/web-0`,
		`error when evicting pods/"web-0" -n "default" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`,
		`There are pending pods in node "worker-0" when an error occurred: [error when evicting pods/"web-0" -n "default": global timeout reached: 8s, error when evicting pods/"web-1" -n "default": global timeout reached: 8s]`,
		`error when evicting pods/"web-0" -n "default": global timeout reached: 8s`,
		`error when evicting pods/"web-1" -n "default": global timeout reached: 8s`,
	}
	bare := []any{
		`error: unable to drain node "worker-0" due to error: cannot delete Pods declare no controller (use --force to override): default/bare, continuing command...`,
		`cannot delete Pods declare no controller (use --force to override): default/bare`,
	}
	tests := []struct {
		name    string
		stderr  []any
		budgets []any
		want    string
	}{
		{"budget", timeout, []any{"default/web-pdb (min available 2, max unavailable N/A)"},
			`kubectl drain worker-0 failed: error when evicting pods/"web-0" -n "default": global timeout reached: 8s; ` +
				`error when evicting pods/"web-1" -n "default": global timeout reached: 8s; ` +
				`budgets allowing no disruption: default/web-pdb (min available 2, max unavailable N/A); the node stays cordoned`},
		{"pods of no controller", bare, nil,
			`kubectl drain worker-0 failed: cannot delete Pods declare no controller (use --force to override): default/bare; the node stays cordoned`},
	}
	for _, tt := range tests {
		vars := map[string]any{"to_version": "v1.31.1", "group_names": []any{"workers"}, "inventory_hostname": "worker-0",
			"groups": map[string]any{"controllers": []any{"controller-0"}}}
		task := shippedTask(t, "kubelet", "Verify the node is drained", vars)
		vars["drain"] = map[string]any{"rc": 1, "stderr_lines": tt.stderr}
		if tt.budgets != nil {
			vars["budgets"] = map[string]any{"stdout_lines": tt.budgets}
		}
		got, err := jinja.RenderString(task.Args["msg"].(string), vars)
		if err != nil || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: message\n%q, %v\nwant it to start with\n%q", tt.name, got, err, tt.want)
		}
	}
}

// Every package install task is changed when apt or dnf changed a package (apt's "Setting up",
// dnf's Installed:, Upgraded: or Downgraded: section) and only then: a version already
// installed is ok. dnf says nothing of "Installed:" when it upgrades.
func TestPackageInstallChangedOnAptAndDnf(t *testing.T) {
	tasks := map[string][]string{"control-plane": {"Install kubeadm"}, "kubelet": {"Install kubeadm", "Install the kubelet"}, "abort": {"Put kubeadm back"}}
	outputs := map[string]bool{
		"Unpacking kubeadm (1.31.1-1.1) over (1.30.1-1.1) ...\nSetting up kubeadm (1.31.1-1.1) ...":                         true,
		"kubeadm is already the newest version (1.31.1-1.1).\n0 upgraded, 0 newly installed":                                false,
		"Running transaction\nUpgraded:\n  kubeadm-1.31.1-150500.1.1.x86_64\n\nComplete!":                                   true,
		"Running transaction\nDowngraded:\n  kubeadm-1.30.1-150500.1.1.x86_64\n\nComplete!":                                 true,
		"Running transaction\nInstalled:\n  kubectl-1.31.1-150500.1.1.x86_64\n\nComplete!":                                  true,
		"Package kubeadm-1.31.1-150500.1.1.x86_64 is already installed.\nDependencies resolved.\nNothing to do.\nComplete!": false,
	}
	for book, names := range tasks {
		pb := mustEmbedded(t, book)
		for _, name := range names {
			var task *Task
			for _, p := range pb.Plays {
				for _, tk := range p.Tasks {
					if task == nil && strings.HasPrefix(tk.Name, name) {
						task = tk
					}
				}
			}
			if task == nil || len(task.ChangedWhen) != 1 {
				t.Fatalf("%s: no task %q with one changed_when", book, name)
			}
			for stdout, want := range outputs {
				vars := map[string]any{task.Register: map[string]any{"stdout": stdout}}
				if got, err := jinja.Cond(task.ChangedWhen[0], vars); err != nil || got != want {
					t.Errorf("%s: %s changed = %v (%v) after\n%s\nwant %v", book, task.Name, got, err, stdout, want)
				}
			}
		}
	}
}
