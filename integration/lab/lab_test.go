//go:build integration

package lab

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	docker "github.com/ory/dockertest/v3/docker"
	"golang.org/x/crypto/ssh"
	"gopkg.in/yaml.v3"
)

// TestLab walks one two-controller, one-worker lab through what kupgrade's tests rely on.
// The subtests run in order and build on each other, like an upgrade does.
func TestLab(t *testing.T) {
	t.Parallel()
	l := Start(t, Options{Controllers: 2, Workers: 1})
	c0, c1, w0 := l.Node("controller-0"), l.Node("controller-1"), l.Node("worker-0")

	t.Run("inventory", func(t *testing.T) {
		data, err := os.ReadFile(l.Inventory())
		if err != nil {
			t.Fatal(err)
		}
		var inv struct {
			All struct {
				Vars     map[string]any
				Children map[string]struct {
					Hosts map[string]struct {
						Host string `yaml:"ansible_host"`
						Port int    `yaml:"ansible_port"`
					}
				}
			}
		}
		if err := yaml.Unmarshal(data, &inv); err != nil {
			t.Fatalf("inventory is not YAML: %v\n%s", err, data)
		}
		for _, n := range l.Nodes() {
			group := n.Role + "s"
			h, ok := inv.All.Children[group].Hosts[n.Name]
			if !ok || h.Host != "127.0.0.1" || h.Port != n.Port {
				t.Errorf("%s in group %s = %+v, want 127.0.0.1:%d", n.Name, group, h, n.Port)
			}
		}
		if v := inv.All.Vars; v["ansible_user"] != "sysadmin" || v["ansible_become"] != true ||
			v["kupgrade_known_hosts"] != l.KnownHosts() || v["kupgrade_cluster"] != l.Name {
			t.Errorf("all.vars = %v", v)
		}
		hosts, _ := os.ReadFile(l.KnownHosts())
		if got := strings.Count(string(hosts), "[127.0.0.1]:"); got != 3 {
			t.Errorf("known_hosts has %d entries, want 3:\n%s", got, hosts)
		}
	})

	t.Run("starting versions", func(t *testing.T) {
		wantTags(t, c1, DefaultVersion)
		out, status, err := sshRun(t, w0, "kubelet --version && kubeadm version -o short && test ! -e /etc/kubernetes/manifests/kube-apiserver.yaml")
		if err != nil || status != 0 || out != "Kubernetes "+DefaultVersion+"\n"+DefaultVersion+"\n" {
			t.Fatalf("worker-0: %q status %d err %v", out, status, err)
		}
	})

	t.Run("failing in preflight leaves the disk untouched", func(t *testing.T) {
		before := mustExec(t, c0, "sh", "-c", "cat /etc/kubernetes/manifests/*.yaml /var/lib/kubelet/config.yaml; ls -A /etc/kubernetes/tmp")
		if err := c0.InjectFault(t.Context(), Fault{Phase: "preflight", Before: true, Action: Exit, Status: 1}); err != nil {
			t.Fatal(err)
		}
		for range 2 { // persistent: both runs fail
			if _, status, err := sshRun(t, c0, "sudo kubeadm upgrade apply "+target+" -y"); err != nil || status != 1 {
				t.Fatalf("apply: status %d err %v, want exit 1", status, err)
			}
		}
		after := mustExec(t, c0, "sh", "-c", "cat /etc/kubernetes/manifests/*.yaml /var/lib/kubelet/config.yaml; ls -A /etc/kubernetes/tmp")
		if before != after {
			t.Fatal("preflight failure changed the disk")
		}
		if err := c0.ClearFault(t.Context()); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("exit status after a phase, then a retry succeeds", func(t *testing.T) {
		if err := c0.InjectFault(t.Context(), Fault{Phase: "addon", Action: Exit, Status: 7, Once: true}); err != nil {
			t.Fatal(err)
		}
		if _, status, err := sshRun(t, c0, "sudo kubeadm upgrade apply "+target+" --yes"); err != nil || status != 7 {
			t.Fatalf("apply: status %d err %v, want exit 7", status, err)
		}
		if _, status, err := sshRun(t, c0, "sudo kubeadm upgrade apply "+target+" --yes"); err != nil || status != 0 {
			t.Fatalf("retried apply: status %d err %v", status, err)
		}
		wantTags(t, c0, target)
	})

	t.Run("seed: late failure on the second controller, then upgrade node again", func(t *testing.T) {
		if err := c1.InjectFault(t.Context(), Fault{Phase: "kubelet-config", Action: Exit, Status: 1, Once: true}); err != nil {
			t.Fatal(err)
		}
		if _, status, err := sshRun(t, c1, "sudo kubeadm upgrade node"); err != nil || status != 1 {
			t.Fatalf("upgrade node: status %d err %v, want exit 1", status, err)
		}
		wantTags(t, c1, target)
		live := mustExec(t, c1, "cat", KubeletConfigPath)
		backup := mustExec(t, c1, "sh", "-c", "cat /etc/kubernetes/tmp/kubeadm-kubelet-config*/config.yaml")
		if !strings.Contains(live, "kubeadm "+target) || !strings.Contains(backup, "kubeadm "+DefaultVersion) {
			t.Fatalf("after the seed failure: live config %q..., backup %q...", live[:60], backup[:60])
		}
		if _, status, err := sshRun(t, c1, "sudo kubeadm upgrade node"); err != nil || status != 0 {
			t.Fatalf("second upgrade node: status %d err %v", status, err)
		}
		wantTags(t, c1, target)
	})

	t.Run("hang ends when its SSH connection closes", func(t *testing.T) {
		client, _ := startHanging(t, w0)
		client.Close()
		waitNoKubeadm(t, w0)
	})

	t.Run("hang ends when its process group gets SIGTERM", func(t *testing.T) {
		client, s := startHanging(t, w0)
		defer client.Close()
		mustExec(t, w0, "sh", "-c", `/usr/bin/kill -TERM -- -$(ps -o pgid= -p "$(pgrep -f '^/bin/bash /usr/bin/kubeadm upgrade')" | tr -d ' ')`)
		var exit *ssh.ExitError
		if err := s.Wait(); !errors.As(err, &exit) || exit.ExitStatus() == 0 {
			t.Fatalf("session ended with %v, want a non-zero exit status", err)
		}
		waitNoKubeadm(t, w0)
	})

	t.Run("drop ends the SSH connection", func(t *testing.T) {
		if err := w0.InjectFault(t.Context(), Fault{Phase: "kubelet-config", Action: Drop, Once: true}); err != nil {
			t.Fatal(err)
		}
		_, _, err := sshRun(t, w0, "sudo kubeadm upgrade node")
		if err == nil {
			t.Fatal("the connection stayed up and the command reported an exit status")
		}
		if _, status, err := sshRun(t, w0, "sudo kubeadm upgrade node"); err != nil || status != 0 {
			t.Fatalf("upgrade node after the drop: status %d err %v", status, err)
		}
	})

	t.Run("kubelet install and restart", func(t *testing.T) {
		out, status, err := sshRun(t, w0, "sudo "+KubeletInstallCommand+" "+target+" && sudo "+KubeletRestartCommand+" && kubelet --version && kubectl get nodes")
		if err != nil || status != 0 || !strings.Contains(out, "Kubernetes "+target) ||
			!strings.Contains(out, "worker-0         Ready                      <none>          "+target) {
			t.Fatalf("status %d err %v out:\n%s", status, err, out)
		}
	})

	t.Run("kubectl cordon and uncordon, with the flags the shipped playbooks pass", func(t *testing.T) {
		kc := "kubectl --kubeconfig /etc/kubernetes/admin.conf "
		out, status, err := sshRun(t, w0, "sudo "+kc+"cordon worker-0 && "+kc+"get nodes worker-0")
		if err != nil || status != 0 || !strings.Contains(out, "Ready,SchedulingDisabled") {
			t.Fatalf("cordon: status %d err %v out:\n%s", status, err, out)
		}
		out, status, err = sshRun(t, w0, "sudo "+kc+"uncordon worker-0 && "+kc+"get nodes worker-0")
		if err != nil || status != 0 || strings.Contains(out, "SchedulingDisabled") {
			t.Fatalf("uncordon: status %d err %v out:\n%s", status, err, out)
		}
	})

	t.Run("stop and start keep port and host key; a cut network refuses logins", func(t *testing.T) {
		ctx := t.Context()
		if err := w0.CutNetwork(ctx); err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if c, err := w0.Dial(short); err == nil {
			c.Close()
			t.Fatal("logged in to a node whose network is cut")
		}
		if err := w0.RestoreNetwork(ctx); err != nil {
			t.Fatal(err)
		}
		if err := w0.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if err := w0.Start(ctx); err != nil { // waits for a login that verifies the recorded host key
			t.Fatal(err)
		}
		if out := mustExec(t, w0, "cat", "/var/lib/kupgrade-lab/kubelet-running"); out != target+"\n" {
			t.Fatalf("after restart the kubelet runs %q, want the disk kept", out)
		}
	})

	t.Run("purge leaves nothing behind", func(t *testing.T) {
		if err := l.Purge(t.Context()); err != nil {
			t.Fatal(err)
		}
		client := l.pool.Client
		label := LabelKey + "=" + l.Name
		cs, _ := client.ListContainers(docker.ListContainersOptions{All: true, Filters: map[string][]string{"label": {label}}})
		ns, _ := client.FilteredListNetworks(docker.NetworkFilterOpts{"label": {label: true}})
		vs, _ := client.ListVolumes(docker.ListVolumesOptions{Filters: map[string][]string{"label": {label}}})
		if len(cs)+len(ns)+len(vs) != 0 {
			t.Fatalf("left behind: %d containers, %d networks, %d volumes", len(cs), len(ns), len(vs))
		}
	})
}
