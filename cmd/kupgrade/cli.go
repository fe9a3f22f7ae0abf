package main

// CLI is kupgrade's grammar (docs/cli.md): verbs grouped by noun, and StarlingX's `system kube-*`
// names as hidden aliases at the top level. A command of type stepCmd or hostStepCmd runs the
// step whose command (or alias) in state's step table its name spells: see stepOf.
type CLI struct {
	Globals
	VersionFlag versionFlag `name:"version" help:"Print version and commit, then exit."`

	Upgrade   upgradeCmd   `cmd:"" help:"The cluster's upgrade: start, show, run each step, complete, abort."`
	Host      hostCmd      `cmd:"" help:"Hosts: list them, upgrade one host's control plane or kubelet."`
	Recover   recoverCmd   `cmd:"" help:"Fail an in-flight operation nobody is running any more, so it can be retried."`
	Watch     watchCmd     `cmd:"" help:"Audit for stuck operations (expired leases, stale states) in every cluster."`
	Fleet     fleetCmd     `cmd:"" help:"Upgrade many clusters, one inventory each, from one or several machines sharing the database."`
	Play      playCmd      `cmd:"" help:"Run a playbook against the inventory (like ansible-playbook)."`
	Inventory inventoryCmd `cmd:"" help:"Show the resolved inventory."`
	Version   versionCmd   `cmd:"" help:"Print version, commit and Go version."`

	Completion completionCmd `cmd:"" help:"Print the shell completion script for bash, zsh or fish."`
	Man        manCmd        `cmd:"" help:"Print the man page, kupgrade(1), as roff."`

	KubeUpgradeStart          upgradeStartCmd    `cmd:"" name:"kube-upgrade-start" hidden:"" help:"Alias of 'upgrade start'."`
	KubeUpgradeShow           upgradeShowCmd     `cmd:"" name:"kube-upgrade-show" hidden:"" help:"Alias of 'upgrade show'."`
	KubeUpgradeDownloadImages stepCmd            `cmd:"" name:"kube-upgrade-download-images" hidden:"" help:"Alias of 'upgrade download-images'."`
	KubePreApplicationUpdate  stepCmd            `cmd:"" name:"kube-pre-application-update" hidden:"" help:"Alias of 'upgrade pre-app-update'."`
	KubePostApplicationUpdate stepCmd            `cmd:"" name:"kube-post-application-update" hidden:"" help:"Alias of 'upgrade post-app-update'."`
	KubeUpgradeNetworking     stepCmd            `cmd:"" name:"kube-upgrade-networking" hidden:"" help:"Alias of 'upgrade networking'."`
	KubeUpgradeStorage        stepCmd            `cmd:"" name:"kube-upgrade-storage" hidden:"" help:"Alias of 'upgrade storage'."`
	KubeHostUpgradeList       hostListCmd        `cmd:"" name:"kube-host-upgrade-list" hidden:"" help:"Alias of 'host list'."`
	KubeHostUpgrade           hostUpgradeCmd     `cmd:"" name:"kube-host-upgrade" hidden:"" help:"Alias of 'host upgrade'."`
	KubeHostCordon            hostStepCmd        `cmd:"" name:"kube-host-cordon" hidden:"" help:"Alias of 'host cordon'."`
	KubeHostUncordon          hostStepCmd        `cmd:"" name:"kube-host-uncordon" hidden:"" help:"Alias of 'host uncordon'."`
	KubeUpgradeNextHop        stepCmd            `cmd:"" name:"kube-upgrade-next-hop" hidden:"" help:"Alias of 'upgrade next-hop'."`
	KubeUpgradeComplete       upgradeCompleteCmd `cmd:"" name:"kube-upgrade-complete" hidden:"" help:"Alias of 'upgrade complete'."`
	KubeUpgradeAbort          upgradeAbortCmd    `cmd:"" name:"kube-upgrade-abort" hidden:"" help:"Alias of 'upgrade abort'."`
	KubeUpgradeDelete         upgradeDeleteCmd   `cmd:"" name:"kube-upgrade-delete" hidden:"" help:"Alias of 'upgrade delete'."`
	KubeUpgradeFailed         upgradeFailedCmd   `cmd:"" name:"kube-upgrade-failed" hidden:"" help:"Alias of 'upgrade failed'."`
	KubeVersionList           upgradeVersionsCmd `cmd:"" name:"kube-version-list" hidden:"" help:"Alias of 'upgrade versions'."`
}

type upgradeCmd struct {
	Start          upgradeStartCmd    `cmd:"" help:"Check the hosts and create the upgrade to VERSION."`
	Show           upgradeShowCmd     `cmd:"" help:"Show the upgrade: versions, state, lease."`
	Versions       upgradeVersionsCmd `cmd:"" help:"The versions the inventory's hosts can go to, and where each comes from."`
	DownloadImages stepCmd            `cmd:"" name:"download-images" help:"Pull the new control-plane images on the controllers."`
	PreAppUpdate   stepCmd            `cmd:"" name:"pre-app-update" help:"Run the pre-application-update hook playbook."`
	Networking     stepCmd            `cmd:"" help:"Run the networking step's playbook."`
	Storage        stepCmd            `cmd:"" help:"Run the storage step's playbook."`
	PostAppUpdate  stepCmd            `cmd:"" name:"post-app-update" help:"Run the post-application-update hook playbook."`
	NextHop        stepCmd            `cmd:"" name:"next-hop" help:"Move an upgrade across several minors to its next hop once this one's control plane (and kubelets, when they follow every hop) is done."`
	Complete       upgradeCompleteCmd `cmd:"" help:"Mark the upgrade complete once every kubelet is upgraded."`
	Abort          upgradeAbortCmd    `cmd:"" help:"Abort the upgrade: restore what it changed on the controllers from the backups kubeadm made during it, and verify the versions."`
	Delete         upgradeDeleteCmd   `cmd:"" help:"Delete a completed or aborted upgrade (its history stays)."`
	Failed         upgradeFailedCmd   `cmd:"" help:"Fail the in-flight operation by hand (the one failing path)."`
	Run            upgradeRunCmd      `cmd:"" help:"Walk every remaining step in order, resuming from the current state."`
	Plan           upgradePlanCmd     `cmd:"" help:"Show, writing nothing, every remaining step, its checks and the next command."`
	List           upgradeListCmd     `cmd:"" help:"List the upgrade of every cluster in the database: state, age, lease, stuck or failed."`
	History        upgradeHistoryCmd  `cmd:"" help:"Show the events of an upgrade: time, actor, state change, host, reason."`
	Logs           upgradeLogsCmd     `cmd:"" help:"List the run logs of the upgrade (every task of each command, its whole output); --last prints the newest."`
}

type hostCmd struct {
	List     hostListCmd    `cmd:"" help:"List the hosts of the upgrade with their versions and status."`
	Upgrade  hostUpgradeCmd `cmd:"" help:"Upgrade one host's control plane or kubelet."`
	Cordon   hostStepCmd    `cmd:"" help:"Cordon a host (one-controller systems)."`
	Uncordon hostStepCmd    `cmd:"" help:"Uncordon a host (one-controller systems)."`
}
