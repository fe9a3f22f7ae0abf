package playbooks

// The variables the upgrade workflow and the shipped playbooks share: the only place their names
// are spelled in Go. A user's playbook (kupgrade_playbooks) gets the same variables and is read
// back the same way. vars_test.go checks each against the shipped playbook that uses or
// registers it.
const (
	// VarToVersion is the upgrade's target version (e.g. v1.30.2), handed to every step.
	VarToVersion = "to_version"
	// VarFromVersion is the version the upgrade started from, handed to every step.
	VarFromVersion = "from_version"
	// VarCluster is the inventory's cluster name, handed to every step.
	VarCluster = "kupgrade_cluster"
	// VarUpgrade is the upgrade's id, and VarCordonMark the value of the kupgrade.io/cordoned
	// mark its drains put on a node ("upgrade ID by RUNNER with the database DB"), handed to
	// every step: the kubelet playbook takes over no other upgrade's mark.
	VarUpgrade    = "kupgrade_upgrade"
	VarCordonMark = "kupgrade_cordon_mark"
	// VarKubeadmTimeout is how long a kubeadm (or package) command may run, handed to every step.
	VarKubeadmTimeout = "kubeadm_timeout"
	// VarDrainTimeout is how long the kubelet playbook's drain may wait on evictions (a
	// budget that blocks) before the step fails: kubectl drain's --timeout.
	VarDrainTimeout = "drain_timeout"
	// VarImageVersions are the versions whose control-plane images the download-images step
	// makes ready: the running hop's and every later one's (to_version alone for one hop), so
	// that a hop whose images no registry serves fails the first hop's download step, before
	// any control plane moves.
	VarImageVersions = "image_versions"

	// VarFirstController tells the control-plane playbook to run `kubeadm upgrade apply` rather
	// than `kubeadm upgrade node`.
	VarFirstController = "first_controller"
	// VarRedo tells the control-plane playbook that the host already reports the target (kubeadm
	// skips identical manifests); the shipped playbook needs no different action.
	VarRedo = "redo"
	// VarKcfgBefore is the host's snapshot kupgrade took before the control-plane step; the
	// shipped playbook takes (registers) its own only when it is not given.
	VarKcfgBefore = "kcfg_before"

	// VarKcfgAfter is registered by the control-plane playbook: the snapshot after kubeadm, from
	// which the workflow verifies the control-plane version without reading the host again.
	VarKcfgAfter = "kcfg_after"
	// VarKubeletVersion is registered by the kubelet playbook: `kubelet --version`, from which
	// the workflow verifies the kubelet without reading the host again.
	VarKubeletVersion = "kubelet_version"

	// VarBackupTags are the static-pod manifests' tags the host's first control-plane step of
	// this upgrade found ("component tag" lines; "" before that step), and VarBackupExisting the
	// kubeadm backup folders that were there then (one a line): the control-plane playbook puts
	// a manifest an interrupted kubeadm left missing back from a folder made during this upgrade
	// that holds it at that tag, never from an older one.
	VarBackupTags     = "kupgrade_backup_tags"
	VarBackupExisting = "kupgrade_backup_existing"
	// VarAbortRestore is the abort playbook's variable: per host name, the tags, folders and
	// config.yaml checksum it restores from.
	VarAbortRestore = "abort_restore"
	// VarKubeletBack tells the kubelet playbook to take the kubelet back (abort --kubelets, with
	// to_version the upgrade's from version): per host name, the config.yaml checksum before
	// this upgrade and the kubeadm-kubelet-config* folders made during it.
	VarKubeletBack = "kubelet_back"
	// VarAbortClusterConfig are this upgrade's versions (space-separated) once its first
	// control-plane step ran, else "": the abort playbook puts kubeadm-config's
	// ClusterConfiguration kubernetesVersion back when it holds one of them.
	VarAbortClusterConfig = "abort_cluster_config"

	// VarEtcdSnapshotScript is the etcd-snapshot playbook's script (kupgrade writes it), and
	// VarEtcdSnapshot what the playbook registers: the script's output.
	VarEtcdSnapshotScript = "kupgrade_etcd_snapshot_script"
	VarEtcdSnapshot       = "etcd_snapshot"

	// VarEtcdRestoreScript is the etcd-restore playbook's scripts, per host name (kupgrade
	// writes them, one per phase); VarEtcdRestoreFile the verified snapshot on kupgrade's side
	// and VarEtcdRestoreDest where it is copied on each member; VarEtcdRestore what the
	// playbook registers: the script's output.
	VarEtcdRestoreScript = "kupgrade_etcd_restore_script"
	VarEtcdRestoreFile   = "kupgrade_etcd_restore_file"
	VarEtcdRestoreDest   = "kupgrade_etcd_restore_dest"
	VarEtcdRestore       = "etcd_restore"

	// VarPlaybooks is the inventory variable that maps step names to a user's playbooks.
	VarPlaybooks = "kupgrade_playbooks"
)

// The tags of the kubelet playbook's phases: the workflow plays the tasks of each under a host
// status of its own (draining-node, upgrading-kubelet, uncordoning-node). A kubelet playbook of
// a site's own that carries none of them runs whole in the kubelet phase.
const (
	TagDrain    = "drain"
	TagKubelet  = "kubelet"
	TagUncordon = "uncordon"
)
