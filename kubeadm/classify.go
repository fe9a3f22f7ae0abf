package kubeadm

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Finding classes: how far an interrupted kubeadm upgrade got on one host (docs/states.md).
const (
	FindingPreflight        = "preflight"
	FindingSwapping         = "swapping-manifests"
	FindingControlPlaneDone = "control-plane-done"
	FindingConfigRewritten  = "kubelet-config-rewritten"
	FindingConfigMissing    = "kubelet-config-missing"
	FindingManifestMissing  = "manifest-missing"
	FindingComplete         = "complete"
	FindingRolledBack       = "manifests-rolled-back"
	FindingUnknown          = "unknown"
)

// Finding is the outcome of the kubelet-config check: a class, one sentence for people about
// /var/lib/kubelet/config.yaml and the manifests, and the next step. Its JSON field names are
// stored in the events' evidence and read by `recover` and the audit: they do not change.
type Finding struct {
	Class   string   `json:"class"`
	Summary string   `json:"summary"`
	Next    string   `json:"next"`
	Before  Snapshot `json:"before"`
	After   Snapshot `json:"after"`
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
	f := Finding{Before: before, After: after}
	cp := describe(after, target)
	switch {
	case !after.ConfigExists:
		f.Class = FindingConfigMissing
		f.Summary = fmt.Sprintf("%s is missing (%s): the kubelet's configuration was lost.", configPath, cp.text)
		if b, ok := newestConfigBackup(after); ok {
			f.Next = fmt.Sprintf("restore it from the newest backup before retrying, as root on the host: cp -p %s/config.yaml %s", b, configPath)
		} else {
			f.Next = "no kubeadm-kubelet-config* backup holds a config.yaml: regenerate it with `kubeadm upgrade node phase kubelet-config` before retrying"
		}
	case len(after.MissingControlPlane()) > 0:
		missing := after.MissingControlPlane()
		f.Class = FindingManifestMissing
		f.Summary = fmt.Sprintf("%s/%s.yaml is missing while other control-plane manifests are there: a kubeadm was stopped between moving the live manifest into its backup folder and moving the new one in, and kubeadm now takes this controller for a worker.",
			manifestsDir, strings.Join(missing, ".yaml, "))
		f.Next = "retry the step: kupgrade first puts the missing manifest back from the newest kubeadm-backup-manifests-* folder that holds it, then kubeadm upgrades it"
	case before.Taken.IsZero():
		f.Class = FindingUnknown
		f.Summary = fmt.Sprintf("No snapshot from before the step: %s exists (sha256 %s) and %s.", configPath, short(after.ConfigSHA256), cp.text)
		f.Next = "retry the step: kubeadm skips manifests already at the target, so a redo is safe"
		if len(after.UpgradedManifestsDirs) > 0 {
			f.Next += fmt.Sprintf(" (%s was left behind by an interrupted run)", after.UpgradedManifestsDirs[0])
		}
	case after.ConfigSHA256 != before.ConfigSHA256:
		backup, ok := newestConfigBackup(after)
		if cp.all && !ok {
			f.Class = FindingComplete
			f.Summary = fmt.Sprintf("%s was rewritten and %s: every phase is done on disk.", configPath, cp.text)
			f.Next = "verify the versions on the host and record the step; a retry is a safe redo"
			break
		}
		f.Class = FindingConfigRewritten
		if ok {
			f.Summary = fmt.Sprintf("%s was rewritten (the old copy is in %s) and %s: kubeadm failed late, after the kubelet-config phase.", configPath, backup, cp.text)
		} else {
			f.Summary = fmt.Sprintf("%s was rewritten with no backup copy and %s: kubeadm got past the kubelet-config phase.", configPath, cp.text)
		}
		f.Next = "retry the step: kubeadm skips identical manifests and writes config.yaml again, so a redo is safe; then upgrade the kubelet"
	case newConfigBackup(before, after) != "":
		// The real kubeadm rewrites config.yaml even with the same bytes (an unchanged
		// kubelet-config ConfigMap, as from v1.30 to v1.31 in the real lab): the backup it made
		// first is what shows that the phase ran.
		f.Class = FindingConfigRewritten
		f.Summary = fmt.Sprintf("%s was rewritten with the same content (kubeadm's copy of it is in %s) and %s: kubeadm failed late, after the kubelet-config phase.",
			configPath, newConfigBackup(before, after), cp.text)
		f.Next = "retry the step: kubeadm skips identical manifests and writes config.yaml again, so a redo is safe; then upgrade the kubelet"
	case maps.Equal(before.Manifests, after.Manifests) && len(newOf(after.BackupDirs, before.BackupDirs)) == 0:
		f.Class = FindingPreflight
		f.Summary = fmt.Sprintf("Nothing changed on disk: %s is as before and %s; kubeadm stopped before touching the node.", configPath, cp.text)
		f.Next = "fix the cause shown in the step's output, then retry the step; the host needs no repair"
		if cp.some && !cp.all {
			f.Next = "fix the cause shown in the step's output, then retry the step: kubeadm finishes the manifests an earlier run left half swapped"
		}
	case cp.all && cp.n > 0:
		f.Class = FindingControlPlaneDone
		f.Summary = fmt.Sprintf("%s is unchanged and %s: the control-plane phase finished, kubelet-config was not reached.", configPath, cp.text)
		f.Next = "retry the step: kubeadm skips the manifests already at " + target + " and goes on to kubelet-config"
	case cp.some && !cp.all:
		f.Class = FindingSwapping
		f.Summary = fmt.Sprintf("%s is unchanged but %s", configPath, cp.text)
		if len(after.UpgradedManifestsDirs) > 0 {
			f.Summary += fmt.Sprintf(" and %s was left behind", after.UpgradedManifestsDirs[0])
		}
		f.Summary += ": kubeadm was interrupted while swapping manifests."
		f.Next = "retry the step: kubeadm skips the manifests already at " + target + " and swaps the others"
	case len(newOf(after.BackupDirs, before.BackupDirs)) > 0 && !cp.some:
		f.Class = FindingRolledBack
		f.Summary = fmt.Sprintf("%s is unchanged and %s although kubeadm made the backup %s: a component did not come back and kubeadm rolled the manifests back.",
			configPath, cp.text, newOf(after.BackupDirs, before.BackupDirs)[0])
		f.Next = "find why the static pod did not start (crictl ps -a, journalctl -u kubelet), fix it, then retry the step"
	case !maps.Equal(before.Manifests, after.Manifests):
		f.Class = FindingUnknown
		f.Summary = fmt.Sprintf("%s is unchanged but the manifests moved to tags other than %s (%s).", configPath, target, cp.text)
		f.Next = "look at /etc/kubernetes/manifests on the host before retrying the step"
	default:
		f.Class = FindingPreflight
		f.Summary = fmt.Sprintf("Nothing changed on disk: %s is as before and %s; kubeadm stopped before touching the node.", configPath, cp.text)
		f.Next = "fix the cause shown in the step's output, then retry the step; the host needs no repair"
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
