package kubeadm

import (
	"fmt"
	"maps"
	"strings"
)

// classCase is what Classify judges: the two snapshots, the target and where the manifests stand.
type classCase struct {
	before, after Snapshot
	target        string
	cp            cpState
}

// classRules are Classify's cases, first match wins: each fills the finding when it applies.
var classRules = []func(c classCase, f *Finding) bool{
	configMissing, manifestMissing, noBefore, configChanged, sameBytesRewritten,
	untouched, controlPlaneDone, swapping, rolledBack, manifestsElsewhere, preflight,
}

const redoRewrite = "retry the step: kubeadm skips identical manifests and writes config.yaml again, so a redo is safe; then upgrade the kubelet"

func configMissing(c classCase, f *Finding) bool {
	if c.after.ConfigExists {
		return false
	}
	f.Class = FindingConfigMissing
	f.Summary = fmt.Sprintf("%s is missing (%s): the kubelet's configuration was lost.", configPath, c.cp.text)
	regenerate := "regenerate it with `kubeadm upgrade node phase kubelet-config` before retrying"
	b, older := newConfigBackup(c.before, c.after), ""
	if b == "" {
		older, _ = newestConfigBackup(c.after)
	}
	switch {
	case b != "":
		f.Next = fmt.Sprintf("restore the copy kubeadm kept during this step before retrying, as root on the host: cp -p %s/config.yaml %s", b, configPath)
	case older != "":
		f.Next = fmt.Sprintf("no backup made during this step holds a config.yaml; the folders on the host (newest %s) are from earlier runs and may hold another version's configuration: %s", older, regenerate)
	default:
		f.Next = "no kubeadm-kubelet-config* backup holds a config.yaml: " + regenerate
	}
	return true
}

func manifestMissing(c classCase, f *Finding) bool {
	missing := c.after.MissingControlPlane()
	if len(missing) == 0 {
		return false
	}
	f.Class = FindingManifestMissing
	f.Summary = fmt.Sprintf("%s/%s.yaml is missing while other control-plane manifests are there: a kubeadm was stopped between moving the live manifest into its backup folder and moving the new one in, and kubeadm now takes this controller for a worker.",
		manifestsDir, strings.Join(missing, ".yaml, "))
	f.Next = "retry the step: kupgrade first puts the missing manifest back from a kubeadm-backup-manifests-* folder made during this upgrade that holds it at the version the upgrade found (never from an older upgrade's), then kubeadm upgrades it; with no such copy the retry refuses and says so"
	return true
}

// noBefore: recover after a crash has no snapshot from before the step.
func noBefore(c classCase, f *Finding) bool {
	if !c.before.Taken.IsZero() {
		return false
	}
	f.Class = FindingUnknown
	f.Summary = fmt.Sprintf("No snapshot from before the step: %s exists (sha256 %s) and %s.", configPath, short(c.after.ConfigSHA256), c.cp.text)
	f.Next = "retry the step: kubeadm skips manifests already at the target, so a redo is safe"
	if len(c.after.UpgradedManifestsDirs) > 0 {
		f.Next += fmt.Sprintf(" (%s was left behind by an interrupted run)", c.after.UpgradedManifestsDirs[0])
	}
	return true
}

// configChanged: config.yaml has new bytes; complete when every manifest is at the target and
// kubeadm kept no backup copy, else the seed case.
func configChanged(c classCase, f *Finding) bool {
	if c.after.ConfigSHA256 == c.before.ConfigSHA256 {
		return false
	}
	backup, ok := newestConfigBackup(c.after)
	switch {
	case c.cp.all && !ok:
		f.Class = FindingComplete
		f.Summary = fmt.Sprintf("%s was rewritten and %s: every phase is done on disk.", configPath, c.cp.text)
		f.Next = "verify the versions on the host and record the step; a retry is a safe redo"
		return true
	case ok:
		f.Summary = fmt.Sprintf("%s was rewritten (the old copy is in %s) and %s: kubeadm failed late, after the kubelet-config phase.", configPath, backup, c.cp.text)
	default:
		f.Summary = fmt.Sprintf("%s was rewritten with no backup copy and %s: kubeadm got past the kubelet-config phase.", configPath, c.cp.text)
	}
	f.Class, f.Next = FindingConfigRewritten, redoRewrite
	return true
}

// sameBytesRewritten: the real kubeadm rewrites config.yaml even with the same bytes (an
// unchanged kubelet-config ConfigMap, as from v1.30 to v1.31 in the real lab): the backup it made
// first is what shows that the phase ran.
func sameBytesRewritten(c classCase, f *Finding) bool {
	b := newConfigBackup(c.before, c.after)
	if b == "" {
		return false
	}
	f.Class = FindingConfigRewritten
	f.Summary = fmt.Sprintf("%s was rewritten with the same content (kubeadm's copy of it is in %s) and %s: kubeadm failed late, after the kubelet-config phase.",
		configPath, b, c.cp.text)
	f.Next = redoRewrite
	return true
}

// untouched: the manifests are as before and kubeadm made no backup of them.
func untouched(c classCase, f *Finding) bool {
	if !maps.Equal(c.before.Manifests, c.after.Manifests) || len(newOf(c.after.BackupDirs, c.before.BackupDirs)) > 0 {
		return false
	}
	preflight(c, f)
	if c.cp.some && !c.cp.all {
		f.Next = "fix the cause shown in the step's output, then retry the step: kubeadm finishes the manifests an earlier run left half swapped"
	}
	return true
}

func controlPlaneDone(c classCase, f *Finding) bool {
	if !c.cp.all || c.cp.n == 0 {
		return false
	}
	f.Class = FindingControlPlaneDone
	f.Summary = fmt.Sprintf("%s is unchanged and %s: the control-plane phase finished, kubelet-config was not reached.", configPath, c.cp.text)
	f.Next = "retry the step: kubeadm skips the manifests already at " + c.target + " and goes on to kubelet-config"
	return true
}

func swapping(c classCase, f *Finding) bool {
	if !c.cp.some || c.cp.all {
		return false
	}
	f.Class = FindingSwapping
	f.Summary = fmt.Sprintf("%s is unchanged but %s", configPath, c.cp.text)
	if len(c.after.UpgradedManifestsDirs) > 0 {
		f.Summary += fmt.Sprintf(" and %s was left behind", c.after.UpgradedManifestsDirs[0])
	}
	f.Summary += ": kubeadm was interrupted while swapping manifests."
	f.Next = "retry the step: kubeadm skips the manifests already at " + c.target + " and swaps the others"
	return true
}

func rolledBack(c classCase, f *Finding) bool {
	made := newOf(c.after.BackupDirs, c.before.BackupDirs)
	if len(made) == 0 || c.cp.some {
		return false
	}
	f.Class = FindingRolledBack
	f.Summary = fmt.Sprintf("%s is unchanged and %s although kubeadm made the backup %s: a component did not come back and kubeadm rolled the manifests back.",
		configPath, c.cp.text, made[0])
	f.Next = "find why the static pod did not start (crictl ps -a, journalctl -u kubelet), fix it, then retry the step"
	return true
}

func manifestsElsewhere(c classCase, f *Finding) bool {
	if maps.Equal(c.before.Manifests, c.after.Manifests) {
		return false
	}
	f.Class = FindingUnknown
	f.Summary = fmt.Sprintf("%s is unchanged but the manifests moved to tags other than %s (%s).", configPath, c.target, c.cp.text)
	f.Next = "look at /etc/kubernetes/manifests on the host before retrying the step"
	return true
}

// preflight: nothing changed on disk; it always applies.
func preflight(c classCase, f *Finding) bool {
	f.Class = FindingPreflight
	f.Summary = fmt.Sprintf("Nothing changed on disk: %s is as before and %s; kubeadm stopped before touching the node.", configPath, c.cp.text)
	f.Next = "fix the cause shown in the step's output, then retry the step; the host needs no repair"
	return true
}
