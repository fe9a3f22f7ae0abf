package state

import (
	"slices"
	"strings"
)

// Step is one step of the upgrade workflow, as the one step table says: the states it may start
// from, the state it runs in and the state it ends in, where it runs, its shipped playbook, and
// the command (and StarlingX alias) that runs it. A step whose Running state is in flight has a
// failed twin, and its failed twin is always one of its From states (that is what makes a retry
// possible).
type Step struct {
	Name    string
	From    []State
	Running State // "" when nothing runs in flight (complete)
	Done    State
	Scope   Scope
	// Playbook is the shipped playbook the step runs when the inventory names none of its own
	// (kupgrade_playbooks); "" for a step that runs nothing on the hosts.
	Playbook string
	// Command runs the step, as refusals and retry hints print it; HOST stands for a host name.
	Command string
	// Alias is the StarlingX name of Command (`system kube-...`), a hidden command of the CLI
	// taking the same arguments.
	Alias string
}

// Scope says where a step runs and which host statuses it moves.
type Scope int

const (
	// ScopeControllers runs on every controller and moves the cluster state only.
	ScopeControllers Scope = iota
	// ScopeOneHost runs on the one controller named (cordon, uncordon) and moves the cluster
	// state only.
	ScopeOneHost
	// ScopeControlPlane runs on one controller, whose status is upgrading-control-plane meanwhile.
	ScopeControlPlane
	// ScopeKubeletBatch runs on a batch of hosts, each upgrading-kubelet then upgraded-kubelet.
	ScopeKubeletBatch
	// ScopeStoreOnly runs nothing on the hosts: only the store changes (next-hop).
	ScopeStoreOnly
	// ScopeVerify runs no playbook: it asks the API server, from the first controller, whether
	// the cluster reports what the upgrade did, under the lease (complete).
	ScopeVerify
)

// Step names, as `upgrade run` and the events call them.
const (
	StepDownloadImages = "download-images"
	StepPreAppUpdate   = "pre-app-update"
	StepNetworking     = "networking"
	StepStorage        = "storage"
	StepCordon         = "cordon"
	StepFirstMaster    = "first-master"
	StepSecondMaster   = "second-master"
	StepKubelets       = "kubelets"
	StepUncordon       = "uncordon"
	StepNextHop        = "next-hop"
	StepComplete       = "complete"
	StepPostAppUpdate  = "post-app-update"
	StepAbort          = "abort"
)

// steps is the one step table: the transition rules of docs/states.md, in the normal order, and
// everything else about each step. Nothing else spells these facts; it is exposed through
// Steps, StepNamed and StepOf, which return copies.
var steps = []Step{
	{Name: StepDownloadImages, Scope: ScopeControllers, Playbook: "download-images",
		From: []State{UpgradeStarted, DownloadingImagesFailed}, Running: DownloadingImages, Done: DownloadedImages,
		Command: "kupgrade upgrade download-images", Alias: "kube-upgrade-download-images"},
	{Name: StepPreAppUpdate, Scope: ScopeControllers, Playbook: "check-controllers",
		From: []State{DownloadedImages, PreUpdatingAppsFailed}, Running: PreUpdatingApps, Done: PreUpdatedApps,
		Command: "kupgrade upgrade pre-app-update", Alias: "kube-pre-application-update"},
	{Name: StepNetworking, Scope: ScopeControllers, Playbook: "check-controllers",
		From: []State{DownloadedImages, PreUpdatedApps, UpgradingNetworkingFailed}, Running: UpgradingNetworking, Done: UpgradedNetworking,
		Command: "kupgrade upgrade networking", Alias: "kube-upgrade-networking"},
	{Name: StepStorage, Scope: ScopeControllers, Playbook: "check-controllers",
		From: []State{UpgradedNetworking, UpgradingStorageFailed}, Running: UpgradingStorage, Done: UpgradedStorage,
		Command: "kupgrade upgrade storage", Alias: "kube-upgrade-storage"},
	{Name: StepCordon, Scope: ScopeOneHost, Playbook: "cordon",
		From: []State{UpgradedNetworking, UpgradedStorage, CordonFailed}, Running: CordonStarted, Done: CordonComplete,
		Command: "kupgrade host cordon HOST", Alias: "kube-host-cordon"},
	{Name: StepFirstMaster, Scope: ScopeControlPlane, Playbook: "control-plane",
		From: []State{UpgradedNetworking, UpgradedStorage, CordonComplete, UpgradingFirstMasterFailed}, Running: UpgradingFirstMaster, Done: UpgradedFirstMaster,
		Command: "kupgrade host upgrade HOST control-plane", Alias: "kube-host-upgrade"},
	{Name: StepSecondMaster, Scope: ScopeControlPlane, Playbook: "control-plane",
		From: []State{UpgradedFirstMaster, UpgradingSecondMasterFailed}, Running: UpgradingSecondMaster, Done: UpgradedSecondMaster,
		Command: "kupgrade host upgrade HOST control-plane", Alias: "kube-host-upgrade"},
	// upgrading-kubelets is long-lived; each host moves upgrading-kubelet -> upgraded-kubelet.
	{Name: StepKubelets, Scope: ScopeKubeletBatch, Playbook: "kubelet",
		From: []State{UpgradedSecondMaster, UpgradedFirstMaster, UpgradingKubelets}, Running: UpgradingKubelets, Done: UpgradingKubelets,
		Command: "kupgrade host upgrade HOST kubelet", Alias: "kube-host-upgrade"},
	{Name: StepUncordon, Scope: ScopeOneHost, Playbook: "uncordon",
		From: []State{UpgradingKubelets, UncordonFailed}, Running: UncordonStarted, Done: UncordonComplete,
		Command: "kupgrade host uncordon HOST", Alias: "kube-host-uncordon"},
	// An upgrade with hops (hops.go) goes back to upgrade-started for the next one, once the
	// control plane of this one is done (and its kubelets, when they follow every hop).
	{Name: StepNextHop, Scope: ScopeStoreOnly,
		From: []State{UpgradedFirstMaster, UpgradedSecondMaster, UpgradingKubelets}, Done: UpgradeStarted,
		Command: "kupgrade upgrade next-hop", Alias: "kube-upgrade-next-hop"},
	// complete verifies, in upgrade-completing, that the API server answers and every node and
	// control-plane pod reports the target before it writes upgrade-complete.
	{Name: StepComplete, Scope: ScopeVerify,
		From: []State{UpgradingKubelets, UncordonComplete, UpgradeCompletingFailed}, Running: UpgradeCompleting, Done: UpgradeComplete,
		Command: "kupgrade upgrade complete", Alias: "kube-upgrade-complete"},
	{Name: StepPostAppUpdate, Scope: ScopeControllers, Playbook: "check-controllers",
		From: []State{UpgradeComplete, PostUpdatingAppsFailed}, Running: PostUpdatingApps, Done: PostUpdatedApps,
		Command: "kupgrade upgrade post-app-update", Alias: "kube-post-application-update"},
	{Name: StepAbort, Scope: ScopeControllers, Playbook: "abort",
		From: abortFrom(), Running: UpgradeAborting, Done: UpgradeAborted,
		Command: "kupgrade upgrade abort", Alias: "kube-upgrade-abort"},
}

// deletableStates are the states `upgrade delete` accepts.
var deletableStates = []State{UpgradeComplete, PostUpdatedApps, PostUpdatingAppsFailed, UpgradeAborted}

// Steps returns a copy of the step table, in the normal order.
func Steps() []Step {
	out := make([]Step, len(steps))
	for i, st := range steps {
		out[i] = st.clone()
	}
	return out
}

// DeletableStates returns the states `upgrade delete` accepts.
func DeletableStates() []State { return slices.Clone(deletableStates) }

// clone copies st's From, so that a caller cannot change the table through it.
func (st Step) clone() Step {
	st.From = slices.Clone(st.From)
	return st
}

// abortFrom: an upgrade may be aborted from any state before upgrade-complete that is not in
// flight (an in-flight operation must be failed first), and an abort that failed may be retried.
func abortFrom() []State {
	var from []State
	for _, s := range allStates {
		if s == UpgradeComplete {
			break
		}
		if !s.InFlight() {
			from = append(from, s)
		}
	}
	return append(from, UpgradeAbortingFailed)
}

// StepNamed returns the step called name.
func StepNamed(name string) (Step, bool) {
	for _, s := range steps {
		if s.Name == name {
			return s.clone(), true
		}
	}
	return Step{}, false
}

// StepOf returns the step that runs in (or whose failure is recorded by) state s. The kubelets'
// long-lived upgrading-kubelets has no step of its own here: its failures are the hosts'.
func StepOf(s State) (Step, bool) {
	if r, ok := s.RetryOf(); ok {
		s = r
	}
	for _, st := range steps {
		if st.Running == s && s != "" && !st.LongLived() {
			return st.clone(), true
		}
	}
	return Step{}, false
}

// LongLived reports whether the step stays in its running state between operations, its
// progress kept per host (kubelets): it has no failed twin, and a failure is a host's.
func (st Step) LongLived() bool { return st.Running != "" && st.Running == st.Done }

// Allows reports whether the step may start from state s.
func (st Step) Allows(s State) bool { return slices.Contains(st.From, s) }

// CommandFor is the step's command for host (its HOST replaced); "" when the command needs a
// host and none is known.
func (st Step) CommandFor(host string) string {
	if !strings.Contains(st.Command, "HOST") {
		return st.Command
	}
	if host == "" {
		return ""
	}
	return strings.ReplaceAll(st.Command, "HOST", host)
}
