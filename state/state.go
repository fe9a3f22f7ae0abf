package state

import "slices"

// State is kube_upgrade.state, with StarlingX's strings.
type State string

// Cluster states, in the normal order of docs/states.md.
const (
	UpgradeStarted              State = "upgrade-started"
	DownloadingImages           State = "downloading-images"
	DownloadingImagesFailed     State = "downloading-images-failed"
	DownloadedImages            State = "downloaded-images"
	PreUpdatingApps             State = "pre-updating-apps"
	PreUpdatingAppsFailed       State = "pre-updating-apps-failed"
	PreUpdatedApps              State = "pre-updated-apps"
	UpgradingNetworking         State = "upgrading-networking"
	UpgradingNetworkingFailed   State = "upgrading-networking-failed"
	UpgradedNetworking          State = "upgraded-networking"
	UpgradingStorage            State = "upgrading-storage"
	UpgradingStorageFailed      State = "upgrading-storage-failed"
	UpgradedStorage             State = "upgraded-storage"
	CordonStarted               State = "cordon-started"
	CordonFailed                State = "cordon-failed"
	CordonComplete              State = "cordon-complete"
	UpgradingFirstMaster        State = "upgrading-first-master"
	UpgradingFirstMasterFailed  State = "upgrading-first-master-failed"
	UpgradedFirstMaster         State = "upgraded-first-master"
	UpgradingSecondMaster       State = "upgrading-second-master"
	UpgradingSecondMasterFailed State = "upgrading-second-master-failed"
	UpgradedSecondMaster        State = "upgraded-second-master"
	UpgradingKubelets           State = "upgrading-kubelets"
	UncordonStarted             State = "uncordon-started"
	UncordonFailed              State = "uncordon-failed"
	UncordonComplete            State = "uncordon-complete"
	UpgradeCompleting           State = "upgrade-completing"
	UpgradeCompletingFailed     State = "upgrade-completing-failed"
	UpgradeComplete             State = "upgrade-complete"
	PostUpdatingApps            State = "post-updating-apps"
	PostUpdatingAppsFailed      State = "post-updating-apps-failed"
	PostUpdatedApps             State = "post-updated-apps"
	UpgradeAborting             State = "upgrade-aborting"
	UpgradeAbortingFailed       State = "upgrade-aborting-failed"
	UpgradeAborted              State = "upgrade-aborted"
)

// failedTwin is THE map of docs/states.md ("The one failed map"): every in-flight state and the state
// that failing it leads to. It is the only place this knowledge lives.
var failedTwin = map[State]State{
	DownloadingImages:     DownloadingImagesFailed,
	PreUpdatingApps:       PreUpdatingAppsFailed,
	UpgradingNetworking:   UpgradingNetworkingFailed,
	UpgradingStorage:      UpgradingStorageFailed,
	CordonStarted:         CordonFailed,
	UpgradingFirstMaster:  UpgradingFirstMasterFailed,
	UpgradingSecondMaster: UpgradingSecondMasterFailed,
	UncordonStarted:       UncordonFailed,
	UpgradeCompleting:     UpgradeCompletingFailed,
	PostUpdatingApps:      PostUpdatingAppsFailed,
	UpgradeAborting:       UpgradeAbortingFailed,
}

var failedStates = func() map[State]State {
	m := make(map[State]State, len(failedTwin))
	for inFlight, failed := range failedTwin {
		m[failed] = inFlight
	}
	return m
}()

// allStates lists every cluster state in the order of docs/states.md.
var allStates = []State{
	UpgradeStarted, DownloadingImages, DownloadingImagesFailed, DownloadedImages,
	PreUpdatingApps, PreUpdatingAppsFailed, PreUpdatedApps,
	UpgradingNetworking, UpgradingNetworkingFailed, UpgradedNetworking,
	UpgradingStorage, UpgradingStorageFailed, UpgradedStorage,
	CordonStarted, CordonFailed, CordonComplete,
	UpgradingFirstMaster, UpgradingFirstMasterFailed, UpgradedFirstMaster,
	UpgradingSecondMaster, UpgradingSecondMasterFailed, UpgradedSecondMaster,
	UpgradingKubelets,
	UncordonStarted, UncordonFailed, UncordonComplete,
	UpgradeCompleting, UpgradeCompletingFailed, UpgradeComplete,
	PostUpdatingApps, PostUpdatingAppsFailed, PostUpdatedApps,
	UpgradeAborting, UpgradeAbortingFailed, UpgradeAborted,
}

// AllStates returns every cluster state, in the order of docs/states.md.
func AllStates() []State { return slices.Clone(allStates) }

// Valid reports whether s is one of the states of docs/states.md.
func (s State) Valid() bool { return slices.Contains(allStates, s) }

// InFlight reports whether an operation is running (or was running when it died) in state s.
// upgrading-kubelets is long-lived, not in flight: its per-host work is tracked by host status.
func (s State) InFlight() bool { _, ok := failedTwin[s]; return ok }

// FailedTwin returns the state that failing the in-flight state s leads to.
func (s State) FailedTwin() (State, bool) { f, ok := failedTwin[s]; return f, ok }

// Failed reports whether s is the failed twin of an in-flight state.
func (s State) Failed() bool { _, ok := failedStates[s]; return ok }

// RetryOf returns the in-flight state whose failure s records (the state a retry re-enters).
func (s State) RetryOf() (State, bool) { f, ok := failedStates[s]; return f, ok }

// Personality is a host's role in the cluster, as the inventory and the host table spell it.
type Personality string

// Personalities of a host.
const (
	Controller Personality = "controller"
	Worker     Personality = "worker"
	Storage    Personality = "storage"
)

// Actor is who made a change, as the event log records it.
type Actor string

// Actors recorded in the event log.
const (
	ActorRunner  Actor = "runner"
	ActorCLI     Actor = "cli"
	ActorRecover Actor = "recover"
	ActorWatch   Actor = "watch"
)

// WholeCluster is the host of a change, event or failure that is about no one host but the whole
// cluster (a cluster-wide step): stored as an empty (NULL) hostname.
const WholeCluster = ""

// AllClusters is the cluster to pass to Store.Events for the events of every cluster.
const AllClusters = ""
