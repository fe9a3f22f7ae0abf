package lab

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// workloadImage runs the test workload's pods: the sandbox image every node holds (the lab has
// no registry), never pulled.
const workloadImage = "registry.k8s.io/pause:3.9"

// workloadManifest is a Deployment of one pod per node, controllers included (it tolerates
// their taint and spreads over hostnames), and a PodDisruptionBudget over it: what a drain of
// any node must respect.
const workloadManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: default, labels: {app: %[1]s}}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      terminationGracePeriodSeconds: 1
      tolerations: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: %[1]s}}}
      containers: [{name: pause, image: %[3]q, imagePullPolicy: Never}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: %[1]s, namespace: default}
spec:
  minAvailable: %[4]d
  selector: {matchLabels: {app: %[1]s}}
`

// DeployProtected creates, in the real lab's default namespace, the Deployment name with one
// pod per node and a PodDisruptionBudget requiring minAvailable of them, and waits until every
// pod is available and the budget has counted them. minAvailable below the node count lets a
// drain evict a pod (the new one starts elsewhere); equal to it, the budget can never be met
// by an eviction and blocks every drain.
func (l *Lab) DeployProtected(ctx context.Context, name string, minAvailable int) error {
	replicas := len(l.nodes)
	manifest := fmt.Sprintf(workloadManifest, name, replicas, workloadImage, minAvailable)
	if out, err := l.kubectlStdin(ctx, manifest, "apply", "-f", "-"); err != nil {
		return fmt.Errorf("create the protected workload %s: %w\n%s", name, err, out)
	}
	if _, err := l.KubectlRun(ctx, "rollout", "status", "deployment/"+name, "--timeout=3m"); err != nil {
		return fmt.Errorf("protected workload %s: %w", name, err)
	}
	return l.waitBudgetCounted(ctx, name, replicas)
}

// SetRealBudget changes the budget of the protected workload name to minAvailable (to fix a budget
// that blocks, or to make one block).
func (l *Lab) SetRealBudget(ctx context.Context, name string, minAvailable int) error {
	patch := fmt.Sprintf(`{"spec":{"minAvailable":%d}}`, minAvailable)
	if _, err := l.KubectlRun(ctx, "patch", "pdb", name, "--type=merge", "-p", patch); err != nil {
		return fmt.Errorf("set the budget of %s: %w", name, err)
	}
	return nil
}

// Available is the number of the protected workload's pods that are available now, as the
// Deployment counts them.
func (l *Lab) Available(ctx context.Context, name string) (int, error) {
	out, err := l.KubectlRun(ctx, "get", "deployment", name, "-o", "jsonpath={.status.availableReplicas}")
	if err != nil {
		return 0, err
	}
	if strings.TrimSpace(out) == "" {
		return 0, nil
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// BlockingBudgets names (namespace/name) every PodDisruptionBudget in the cluster that allows
// no disruption now: each would stop a drain of a node running one of its pods.
func (l *Lab) BlockingBudgets(ctx context.Context) ([]string, error) {
	out, err := l.KubectlRun(ctx, "get", "pdb", "-A", "-o",
		`jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {.status.disruptionsAllowed}{"\n"}{end}`)
	if err != nil {
		return nil, err
	}
	var blocking []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] == "0" {
			blocking = append(blocking, f[0])
		}
	}
	return blocking, nil
}

// waitBudgetCounted waits until the budget name has observed want healthy pods: before that its
// disruptionsAllowed is not yet what the workload allows.
func (l *Lab) waitBudgetCounted(ctx context.Context, name string, want int) error {
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := l.KubectlRun(ctx, "get", "pdb", name, "-o", "jsonpath={.status.currentHealthy}")
		if err == nil && strings.TrimSpace(out) == strconv.Itoa(want) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("budget %s counts %q healthy pods after a minute, want %d (%v)", name, strings.TrimSpace(out), want, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// kubectlStdin runs the lab's kubectl with stdin.
func (l *Lab) kubectlStdin(ctx context.Context, stdin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, l.Kubectl(), append([]string{"--kubeconfig", l.Kubeconfig()}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}
