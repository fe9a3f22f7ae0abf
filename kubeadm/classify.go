package kubeadm

import (
	"fmt"
	"slices"
	"strings"
)

// FindingClass is how far an interrupted kubeadm upgrade got on one host, as the events'
// evidence spells it.
type FindingClass string

// Finding classes: how far an interrupted kubeadm upgrade got on one host (docs/states.md).
const (
	FindingPreflight        FindingClass = "preflight"
	FindingSwapping         FindingClass = "swapping-manifests"
	FindingControlPlaneDone FindingClass = "control-plane-done"
	FindingConfigRewritten  FindingClass = "kubelet-config-rewritten"
	FindingConfigMissing    FindingClass = "kubelet-config-missing"
	FindingManifestMissing  FindingClass = "manifest-missing"
	FindingComplete         FindingClass = "complete"
	FindingRolledBack       FindingClass = "manifests-rolled-back"
	FindingUnknown          FindingClass = "unknown"
)

// Finding is the outcome of the kubelet-config check: a class, one sentence for people about
// /var/lib/kubelet/config.yaml and the manifests, and the next step. Its JSON field names are
// stored in the events' evidence and read by `recover` and the audit: they do not change.
type Finding struct {
	Class   FindingClass `json:"class"`
	Summary string       `json:"summary"`
	Next    string       `json:"next"`
	Before  Snapshot     `json:"before"`
	After   Snapshot     `json:"after"`
}

// Classify compares the snapshots taken before and after a kubeadm step against the target tag.
//
// A missing config.yaml is reported first, whatever else is seen, then a control-plane manifest
// missing beside the others (a swap cut between its two moves). While another kupgrade command
// still runs on the host (a busy fence), the next step says to wait for it first. Without a before snapshot
// (before.Taken is zero: recover after a crash) the class is unknown and the sentences describe
// the after snapshot against the target. kubeadm leaves the same trail on disk after a late
// failure (addon, post-upgrade) as after success, so a rewritten config.yaml with kubeadm's backup
// copy present is the seed case (kubelet-config-rewritten), and so is an unchanged config.yaml
// with a new backup copy (kubeadm rewrote the same bytes); complete is a rewrite with every
// manifest at the target and no backup copy (kubeadm releases that kept none).
func Classify(before, after Snapshot, target string) Finding {
	c := classCase{before: before, after: after, target: target, cp: describe(after, target)}
	f := Finding{Before: before, After: after}
	for _, rule := range classRules {
		if rule(c, &f) {
			break
		}
	}
	if pk := after.Packages.Repair(); pk != "" {
		f.Summary += " " + pk
		f.Next = strings.Replace(f.Next, "the host needs no repair", "the host's packages need the repair above, which the retry does first", 1)
	}
	if busy := after.busyAdvice(); busy != "" {
		f.Next = busy + " to end, then " + f.Next
	}
	return f
}

type cpState struct {
	n         int // control-plane manifests present
	some, all bool
	text      string
}

// describe says where the control-plane manifests stand against the target. A host without
// control-plane manifests (a worker) counts as "all at the target".
func describe(s Snapshot, target string) cpState {
	var at, off []string
	for _, c := range controlPlane {
		t, ok := s.Manifests[c]
		if !ok {
			continue
		}
		if t == target {
			at = append(at, c)
		} else {
			off = append(off, c+" at "+orNone(t))
		}
	}
	st := cpState{n: len(at) + len(off), some: len(at) > 0, all: len(off) == 0}
	switch {
	case st.n == 0:
		st.text = "there are no control-plane manifests"
	case st.all:
		st.text = "the control-plane manifests are at " + target
	case !st.some:
		st.text = "the control-plane manifests are at " + orNone(s.ControlPlaneVersion()) + ", not " + target
	default:
		st.text = fmt.Sprintf("only %d of %d control-plane manifests are at %s (%s)", len(at), st.n, target, strings.Join(off, ", "))
	}
	return st
}

func orNone(t string) string {
	if t == "" {
		return "no tag"
	}
	return t
}

func newestConfigBackup(s Snapshot) (string, bool) {
	for _, b := range s.KubeletConfigBackups {
		if b.HasConfig {
			return b.Path, true
		}
	}
	return "", false
}

// newConfigBackup is the newest kubeadm-kubelet-config* folder holding a config.yaml that the
// before snapshot did not have, "" when there is none.
func newConfigBackup(before, after Snapshot) string {
	for _, b := range after.KubeletConfigBackups {
		if b.HasConfig && !slices.ContainsFunc(before.KubeletConfigBackups, func(o KubeletBackup) bool { return o.Path == b.Path }) {
			return b.Path
		}
	}
	return ""
}

// newOf lists the entries of after that before does not have, in after's order.
func newOf(after, before []string) []string {
	var out []string
	for _, a := range after {
		if !slices.Contains(before, a) {
			out = append(out, a)
		}
	}
	return out
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
