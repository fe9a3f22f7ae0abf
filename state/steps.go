package state

// Step is one step of the upgrade workflow: the states it may start from, the state it runs in
// and the state it ends in. A step whose Running state is in flight has a failed twin, and its
// failed twin is always one of its From states (that is what makes a retry possible).
type Step struct {
	Name    string
	From    []State
	Running State
	Done    State
}

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
	StepComplete       = "complete"
	StepPostAppUpdate  = "post-app-update"
	StepAbort          = "abort"
)

// Steps are the transition rules of STATES.md, in the normal order.
var Steps = []Step{
	{StepDownloadImages, []State{UpgradeStarted, DownloadingImagesFailed}, DownloadingImages, DownloadedImages},
	{StepPreAppUpdate, []State{DownloadedImages, PreUpdatingAppsFailed}, PreUpdatingApps, PreUpdatedApps},
	{StepNetworking, []State{DownloadedImages, PreUpdatedApps, UpgradingNetworkingFailed}, UpgradingNetworking, UpgradedNetworking},
	{StepStorage, []State{UpgradedNetworking, UpgradingStorageFailed}, UpgradingStorage, UpgradedStorage},
	{StepCordon, []State{UpgradedNetworking, UpgradedStorage, CordonFailed}, CordonStarted, CordonComplete},
	{StepFirstMaster, []State{UpgradedNetworking, UpgradedStorage, CordonComplete, UpgradingFirstMasterFailed}, UpgradingFirstMaster, UpgradedFirstMaster},
	{StepSecondMaster, []State{UpgradedFirstMaster, UpgradingSecondMasterFailed}, UpgradingSecondMaster, UpgradedSecondMaster},
	// upgrading-kubelets is long-lived; each host moves upgrading-kubelet -> upgraded-kubelet.
	{StepKubelets, []State{UpgradedSecondMaster, UpgradedFirstMaster, UpgradingKubelets}, UpgradingKubelets, UpgradingKubelets},
	{StepUncordon, []State{UpgradingKubelets, UncordonFailed}, UncordonStarted, UncordonComplete},
	{StepComplete, []State{UpgradingKubelets, UncordonComplete}, "", UpgradeComplete},
	{StepPostAppUpdate, []State{UpgradeComplete, PostUpdatingAppsFailed}, PostUpdatingApps, PostUpdatedApps},
	{StepAbort, abortFrom(), UpgradeAborting, UpgradeAborted},
}

// DeletableStates are the states `upgrade delete` accepts.
var DeletableStates = []State{UpgradeComplete, PostUpdatedApps, PostUpdatingAppsFailed, UpgradeAborted}

// abortFrom: an upgrade may be aborted from any state before upgrade-complete that is not in
// flight (an in-flight operation must be failed first), and an abort that failed may be retried.
func abortFrom() []State {
	var from []State
	for _, s := range AllStates {
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
	for _, s := range Steps {
		if s.Name == name {
			return s, true
		}
	}
	return Step{}, false
}

// StepOf returns the step that runs in (or whose failure is recorded by) state s.
func StepOf(s State) (Step, bool) {
	if r, ok := s.RetryOf(); ok {
		s = r
	}
	for _, st := range Steps {
		if st.Running == s && s != "" && st.Name != StepKubelets {
			return st, true
		}
	}
	return Step{}, false
}

// Allows reports whether the step may start from state s.
func (st Step) Allows(s State) bool {
	for _, f := range st.From {
		if f == s {
			return true
		}
	}
	return false
}
