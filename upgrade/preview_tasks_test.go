package upgrade_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/upgrade"
)

// The plan shows each task on each host with that host's variables: no template, no script
// dumped with its newlines, tasks a host's variables skip marked skipped.
func TestPreviewTasksPerHost(t *testing.T) {
	f := newFixtureWith(t, `all:
  children:
    controllers:
      hosts:
        controller-0:
        controller-1: {kupgrade_kubeadm_install: "dnf -y install kubeadm-{{ to_version[1:] }}"}
    workers:
      hosts:
        worker-0: {kupgrade_install_packages: false}
`)
	p, err := f.w.Preview(t.Context(), upgrade.PreviewOptions{Version: "1.30.1"})
	if err != nil {
		t.Fatal(err)
	}
	tasks := map[string]upgrade.PlannedTask{} // "step host task" -> task
	for _, s := range p.Steps {
		for _, task := range s.Tasks {
			if strings.Contains(task.Name+task.Command, "{{") || strings.Contains(task.Name+task.Command, "{%") || strings.Contains(task.Command, "\n") {
				t.Errorf("%s on %s shows a template or a whole script: %q: %q", s.Step, task.Host, task.Name, task.Command)
			}
			tasks[s.Step+" "+task.Host+" "+task.Name] = task
		}
	}
	want := map[string]func(upgrade.PlannedTask) bool{
		"first-master controller-0 kubeadm upgrade":               func(x upgrade.PlannedTask) bool { return x.Command == "kubeadm upgrade apply v1.30.1 --yes" },
		"second-master controller-1 kubeadm upgrade":              func(x upgrade.PlannedTask) bool { return x.Command == "kubeadm upgrade node" },
		"second-master controller-1 Install kubeadm v1.30.1":      func(x upgrade.PlannedTask) bool { return x.Command == "dnf -y install kubeadm-1.30.1" && x.Lines == 0 },
		"first-master controller-0 Install kubeadm v1.30.1":       func(x upgrade.PlannedTask) bool { return x.Lines > 10 && x.Command != "" && x.Note == "" },
		"kubelets worker-0 Install kubeadm v1.30.1":               func(x upgrade.PlannedTask) bool { return strings.HasPrefix(x.Note, "skipped: ") && x.Command == "" },
		"kubelets controller-0 kubeadm upgrade node":              func(x upgrade.PlannedTask) bool { return strings.HasPrefix(x.Note, "skipped: ") },
		"kubelets worker-0 Drain the node":                        func(x upgrade.PlannedTask) bool { return strings.Contains(x.Command, " drain worker-0 ") },
		"download-images controller-1 kubeadm config images pull": func(x upgrade.PlannedTask) bool { return strings.HasSuffix(x.Command, "--kubernetes-version v1.30.1") },
	}
	for key, ok := range want {
		if x, found := tasks[key]; !found || !ok(x) {
			t.Errorf("%s: %+v (found %v)", key, x, found)
		}
	}
}

// A value known only at run time (a fact, a registered result) stands as <name> in the
// command, and the task says where it comes from.
func TestPreviewTasksRuntimeValues(t *testing.T) {
	dir := t.TempDir()
	pb := `- name: Check the network of {{ cluster }}
  hosts: controllers
  gather_facts: false
  tasks:
    - name: Read the route
      command: ip route get 1.1.1.1
      register: route
    - name: Ping from {{ inventory_hostname }}
      command: "ping -c1 -I {{ ansible_default_ipv4.interface }} {{ route.stdout.split()[2] }}"
`
	if err := os.WriteFile(filepath.Join(dir, "net.yml"), []byte(pb), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixtureWith(t, "all:\n  vars:\n    kupgrade_playbooks: {networking: "+filepath.Join(dir, "net.yml")+"}\n"+strings.TrimPrefix(twoPlusOne, "all:\n"))
	p, err := f.w.Preview(t.Context(), upgrade.PreviewOptions{Version: "1.30.1"})
	if err != nil {
		t.Fatal(err)
	}
	var ping *upgrade.PlannedTask
	for _, s := range p.Steps {
		for i, task := range s.Tasks {
			if s.Step == "networking" && task.Host == "controller-1" && strings.HasPrefix(task.Name, "Ping") {
				ping = &s.Tasks[i]
			}
		}
	}
	if ping == nil {
		t.Fatalf("no ping task on controller-1 in the networking step: %+v", p.Steps)
	}
	if ping.Name != "Ping from controller-1" || ping.Command != "ping -c1 -I <ansible_default_ipv4> <route>" ||
		!strings.Contains(ping.Note, "ansible_default_ipv4 (a fact, gathered at run time)") || !strings.Contains(ping.Note, "route (registered by an earlier task)") {
		t.Errorf("ping = %+v", *ping)
	}
}

// In an upgrade across several minors, the first hop's download step readies every hop's
// images, and the plan shows one pull per version: a hop whose images no registry serves
// fails that first step, before any control plane moves.
func TestPlanPullsEveryHopsImagesAtTheFirstHop(t *testing.T) {
	f := newFixtureWith(t, twoPlusOneOffering)
	p, err := f.w.Preview(t.Context(), upgrade.PreviewOptions{Version: "v1.31.2"})
	if err != nil {
		t.Fatal(err)
	}
	pulls := map[string][]string{} // hop -> commands
	for _, s := range p.Steps {
		for _, task := range s.Tasks {
			if s.Step == "download-images" && task.Host == "controller-0" {
				pulls[s.Hop] = append(pulls[s.Hop], task.Command)
			}
		}
	}
	const pull = "kubeadm config images pull --kubernetes-version "
	want := map[string][]string{
		"hop 1 of 2 (v1.30.9)": {pull + "v1.30.9", pull + "v1.31.2"},
		"hop 2 of 2 (v1.31.2)": {pull + "v1.31.2"},
	}
	for hop, w := range want {
		if !slices.Equal(pulls[hop], w) {
			t.Errorf("download-images on controller-0 at %s plans %q, want %q", hop, pulls[hop], w)
		}
	}
}
