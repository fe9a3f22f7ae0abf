package lab

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/template"
	"time"
)

// kubeadmConfig is controller-0's `kubeadm init --config`: external etcd over HTTP, the
// control-plane endpoint apiEndpoint (every controller's address, see realNodeFlags), 127.0.0.1
// in the API server's certificate (kubectl from this machine), and what a container node needs: the cgroupfs
// driver, no disk-pressure eviction (the disk is shared), kube-proxy not touching the host's
// conntrack table.
var kubeadmConfig = template.Must(template.New("kubeadm").Parse(`apiVersion: kubeadm.k8s.io/v1beta3
kind: InitConfiguration
bootstrapTokens:
- token: "{{.Token}}"
  ttl: 24h0m0s
certificateKey: "{{.CertKey}}"
localAPIEndpoint:
  advertiseAddress: {{.Address}}
  bindPort: 6443
nodeRegistration:
  name: {{.Name}}
  criSocket: unix:///run/containerd/containerd.sock
  ignorePreflightErrors: [all]
---
apiVersion: kubeadm.k8s.io/v1beta3
kind: ClusterConfiguration
kubernetesVersion: {{.Version}}
clusterName: {{.Cluster}}
controlPlaneEndpoint: {{.Endpoint}}:6443
apiServer:
  certSANs: [127.0.0.1, localhost, {{.Endpoint}}, {{.Address}}]
etcd:
  external:
    endpoints: [http://{{.Etcd}}:2379]
networking:
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failSwapOn: false
imageGCHighThresholdPercent: 100
evictionHard:
  nodefs.available: "0%"
  nodefs.inodesFree: "0%"
  imagefs.available: "0%"
---
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
conntrack:
  maxPerCore: 0
`))

// apiEndpoint is the control-plane endpoint: a name the lab network's DNS resolves to every
// controller (a network alias of each), standing in for StarlingX's floating address. With one
// controller's address instead, restarting that controller's kubelet (new version: its static
// pods restart) cut every node off the API, and a worker's kubeadm upgrade node failed: the real
// lab showed it. Go's dialer tries the next address when one refuses.
const apiEndpoint = "kube-api"

// kubeadmCluster runs kubeadm init, the joins, installs the next kubeadm unless opts.Pristine,
// copies admin.conf out and waits until every node is Ready.
func (l *Lab) kubeadmCluster(ctx context.Context, opts RealOptions) error {
	log := opts.Log
	c0 := l.nodes[0]
	var cfg bytes.Buffer
	err := kubeadmConfig.Execute(&cfg, map[string]string{
		"Token": l.real.token, "CertKey": l.real.certKey, "Address": c0.Address, "Name": c0.Name,
		"Version": l.real.build.From, "Cluster": l.Name, "Etcd": l.real.etcd.Address, "Endpoint": apiEndpoint,
	})
	if err != nil {
		return fmt.Errorf("kubeadm config: %w", err)
	}
	if _, err := execIn(ctx, l.pool.Client, c0.container(), bytes.NewReader(cfg.Bytes()), "sh", "-c", "cat > /etc/kubernetes/kupgrade-lab-init.yaml"); err != nil {
		return fmt.Errorf("write kubeadm config on %s: %w", c0.Name, err)
	}
	if err := c0.kubeadm(ctx, log, "init", "--config", "/etc/kubernetes/kupgrade-lab-init.yaml", "--upload-certs"); err != nil {
		return err
	}
	join := []string{"join", apiEndpoint + ":6443", "--token", l.real.token,
		"--discovery-token-unsafe-skip-ca-verification", "--cri-socket", "unix:///run/containerd/containerd.sock",
		"--ignore-preflight-errors", "all"}
	for _, n := range l.nodes[1:] {
		args := append(append([]string{}, join...), "--node-name", n.Name)
		if n.Role == "controller" {
			args = append(args, "--control-plane", "--certificate-key", l.real.certKey, "--apiserver-advertise-address", n.Address)
		}
		if err := n.kubeadm(ctx, log, args...); err != nil {
			return err
		}
	}
	if !opts.Pristine {
		if err := l.eachNode(func(_ int, n *Node) error {
			_, err := n.Exec(ctx, RealInstallCommand, "kubeadm", l.real.build.To)
			return err
		}); err != nil {
			return fmt.Errorf("install kubeadm %s: %w", l.real.build.To, err)
		}
	}
	if err := l.writeKubeconfig(ctx); err != nil {
		return err
	}
	return l.waitNodesReady(ctx, log)
}

// kubeadm runs kubeadm on the node as root and logs how long it took; on failure the error
// carries kubeadm's output.
func (n *Node) kubeadm(ctx context.Context, log io.Writer, args ...string) error {
	start := time.Now()
	script := `"$0" "$@" > /var/log/kupgrade-real/kubeadm-$1.log 2>&1; rc=$?; cat /var/log/kupgrade-real/kubeadm-$1.log; exit $rc`
	out, err := n.Exec(ctx, append([]string{"sh", "-c", script, "kubeadm"}, args...)...)
	if err != nil {
		return fmt.Errorf("kubeadm %s on %s: %w\n%s", args[0], n.Name, err, tail(out, 30))
	}
	fmt.Fprintf(log, "lab: kubeadm %s on %s took %s\n", args[0], n.Name, time.Since(start).Round(100*time.Millisecond))
	return nil
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

// writeKubeconfig copies controller-0's admin.conf into the lab's folder, pointed at the API
// server's port published on 127.0.0.1.
func (l *Lab) writeKubeconfig(ctx context.Context) error {
	c0 := l.nodes[0]
	conf, err := c0.Exec(ctx, "cat", "/etc/kubernetes/admin.conf")
	if err != nil {
		return fmt.Errorf("read admin.conf: %w", err)
	}
	conf = strings.ReplaceAll(conf, "https://"+apiEndpoint+":6443", fmt.Sprintf("https://127.0.0.1:%d", l.real.apiPort))
	if err := os.WriteFile(l.Kubeconfig(), []byte(conf), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", KubeconfigFile, err)
	}
	return nil
}

// waitNodesReady waits until kubectl (from this machine) lists every node Ready.
func (l *Lab) waitNodesReady(ctx context.Context, log io.Writer) error {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	var last string
	for {
		out, err := l.KubectlRun(ctx, "get", "nodes", "--no-headers")
		last = out
		if err == nil && strings.Count(out, " Ready ") == len(l.nodes) {
			fmt.Fprintf(log, "lab: %d nodes Ready after %s\n", len(l.nodes), time.Since(start).Round(100*time.Millisecond))
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %d nodes Ready: %w; kubectl get nodes:\n%s", len(l.nodes), ctx.Err(), last)
		case <-time.After(2 * time.Second):
		}
	}
}
