package lab

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// KubeadmMaxConcurrentFile is where the simulated kubeadm records the most kubeadm runs it has
// ever seen alive at once on a node (each run counts the runs alive when it starts).
const KubeadmMaxConcurrentFile = "/var/lib/kupgrade-lab/kubeadm-max-concurrent"

// KubeadmMaxConcurrent returns the most kubeadm runs that were ever alive at once on the node: 0
// before the first run, 1 as long as no two runs overlapped.
func (n *Node) KubeadmMaxConcurrent(ctx context.Context) (int, error) {
	out, err := n.Exec(ctx, "sh", "-c", `cat "$0" 2>/dev/null || echo 0`, KubeadmMaxConcurrentFile)
	if err != nil {
		return 0, fmt.Errorf("read kubeadm's concurrency on %s: %w", n.Name, err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return 0, fmt.Errorf("read kubeadm's concurrency on %s: %q: %w", n.Name, out, err)
	}
	return v, nil
}
