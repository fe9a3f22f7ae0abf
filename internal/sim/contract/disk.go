package contract

import (
	"context"
	"regexp"
	"slices"

	"github.com/kupgrade/kupgrade/internal/sim"
)

// The paths of a kubeadm node the contract reads.
const (
	Manifests     = "/etc/kubernetes/manifests"
	KubeTmp       = "/etc/kubernetes/tmp"
	KubeletConfig = "/var/lib/kubelet/config.yaml"
)

var components = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}

var (
	imageTag   = regexp.MustCompile(`(?m)^ *image: .*:(v[0-9.]+)$`)
	writtenFor = regexp.MustCompile(`Written by kubeadm (v[0-9.]+)`)
)

// ReadDisk reads what matters of n's disk.
func ReadDisk(ctx context.Context, n Node) (Disk, error) {
	var d Disk
	tags, err := manifestTags(ctx, n)
	if err != nil {
		return d, err
	}
	d.Tags = tags
	kc, _, err := n.ReadFile(ctx, KubeletConfig)
	if err != nil {
		return d, err
	}
	if m := writtenFor.FindStringSubmatch(kc); m != nil {
		d.KubeletConfig = m[1]
	}
	names, err := n.ReadDir(ctx, KubeTmp)
	if err != nil {
		return d, err
	}
	for _, name := range names {
		d.Backups = append(d.Backups, backupKind(name))
	}
	slices.Sort(d.Backups)
	d.Backups = slices.Compact(d.Backups)
	_, d.Fault, err = n.ReadFile(ctx, sim.FaultFile)
	return d, err
}

// manifestTags is the image tag of every manifest there is, or "mixed" when they differ.
func manifestTags(ctx context.Context, n Node) (string, error) {
	tags := ""
	for _, c := range components {
		m, ok, err := n.ReadFile(ctx, Manifests+"/"+c+".yaml")
		if err != nil || !ok {
			return tags, err
		}
		tag := "none"
		if t := imageTag.FindStringSubmatch(m); t != nil {
			tag = t[1]
		}
		if tags != "" && tag != tags {
			return "mixed", nil
		}
		tags = tag
	}
	return tags, nil
}
