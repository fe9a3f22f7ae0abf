package lab

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Deployment is a workload of the simulated cluster: Replicas pods of app Name spread over
// Nodes (round robin), each with emptyDir data when EmptyDir, and, when MinAvailable > 0, a
// PodDisruptionBudget Name-pdb over them. The simulated kubectl drain evicts through it.
type Deployment struct {
	Namespace    string // default "default"
	Name         string
	Replicas     int
	MinAvailable int
	Nodes        []string
	EmptyDir     bool
	// Owner is the pods' controller: ReplicaSet (default), DaemonSet or none (a bare pod).
	Owner string
}

// Deploy writes d's pods and budget to the lab's shared volume, replacing any of the same name.
func (l *Lab) Deploy(ctx context.Context, d Deployment) error {
	if d.Namespace == "" {
		d.Namespace = "default"
	}
	if d.Owner == "" {
		d.Owner = "ReplicaSet"
	}
	if d.Name == "" || d.Replicas < 1 || len(d.Nodes) == 0 {
		return fmt.Errorf("deploy %q: want a name, replicas and nodes", d.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mkdir -p %s/pods/%s %s/pdbs/%s\n", sharedDir, d.Namespace, sharedDir, d.Namespace)
	for i := range d.Replicas {
		fmt.Fprintf(&b, "printf 'node=%s\\nowner=%s\\napp=%s\\nemptydir=%t\\n' > %s/pods/%s/%s-%d\n",
			d.Nodes[i%len(d.Nodes)], d.Owner, d.Name, d.EmptyDir, sharedDir, d.Namespace, d.Name, i)
	}
	if d.MinAvailable > 0 {
		b.WriteString(budgetScript(d.Namespace, d.Name+"-pdb", d.Name, d.MinAvailable))
	}
	if _, err := l.nodes[0].Exec(ctx, "sh", "-c", b.String()); err != nil {
		return fmt.Errorf("deploy %s/%s: %w", d.Namespace, d.Name, err)
	}
	return nil
}

// SetBudget changes the minAvailable of the budget NAME-pdb of d (the fix of a budget that
// blocked a drain).
func (l *Lab) SetBudget(ctx context.Context, d Deployment, minAvailable int) error {
	ns := d.Namespace
	if ns == "" {
		ns = "default"
	}
	if _, err := l.nodes[0].Exec(ctx, "sh", "-c", budgetScript(ns, d.Name+"-pdb", d.Name, minAvailable)); err != nil {
		return fmt.Errorf("set budget %s/%s-pdb: %w", ns, d.Name, err)
	}
	return nil
}

func budgetScript(ns, name, app string, minAvailable int) string {
	return fmt.Sprintf("printf 'app=%s\\nmin_available=%d\\n' > %s/pdbs/%s/.%s && mv -f %s/pdbs/%s/.%s %s/pdbs/%s/%s\n",
		app, minAvailable, sharedDir, ns, name, sharedDir, ns, name, sharedDir, ns, name)
}

// Healthy counts the pods of d that are scheduled on a node (what its budget counts).
func (l *Lab) Healthy(ctx context.Context, d Deployment) (int, error) {
	ns := d.Namespace
	if ns == "" {
		ns = "default"
	}
	out, err := l.nodes[0].Exec(ctx, "sh", "-c",
		`grep -l -x "app=$1" "$0"/* 2>/dev/null | xargs -r grep -l '^node=.' | wc -l`, sharedDir+"/pods/"+ns, d.Name)
	if err != nil {
		return 0, fmt.Errorf("count healthy pods of %s/%s: %w", ns, d.Name, err)
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// Cordoned reports whether the simulated cluster has the node marked unschedulable.
func (l *Lab) Cordoned(ctx context.Context, node string) (bool, error) {
	out, err := l.nodes[0].Exec(ctx, "sh", "-c", `test -f "$0" && echo yes || echo no`, sharedDir+"/nodes/"+node+"/cordoned")
	if err != nil {
		return false, fmt.Errorf("read cordon of %s: %w", node, err)
	}
	return strings.TrimSpace(out) == "yes", nil
}

const sharedDir = "/var/lib/kupgrade-lab/shared"
